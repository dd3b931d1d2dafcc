import { defineConfig } from 'vitest/config';

/**
 * Tests that measure the daemon's event-loop delay run alone, after the
 * rest: on the 2-core CI machine, a neighbour worker's three daemons and
 * PostgreSQL (the fleet tests) starved the measured daemon of a core for
 * 700 ms at a time, which is the machine's delay, not the daemon's.
 */
const ALONE = ['test/e2e/daemon-loop.test.ts'];

export default defineConfig({
  test: {
    // e2e tests spawn real PTYs; two workers match the 2-core CI machine
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'suite', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
