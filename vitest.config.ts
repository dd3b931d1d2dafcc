import { defineConfig } from 'vitest/config';

/**
 * Files that run one at a time, after the rest, with the machine to
 * themselves. On the 2-core CI machine:
 * - the event-loop test measured a neighbour worker's three daemons and
 *   PostgreSQL (700 ms stalls): the machine's delay, not the daemon's;
 * - the fleet test (three daemons, PostgreSQL, ~220 s) and the benchmark
 *   smoke run (100-job idle and scale runs) starved their neighbours: a
 *   Codex turn that takes 1.6 s alone took 15 s beside them here and over
 *   30 s in CI, and Chromium's launch passed 30 s. A test that waits for a
 *   real program has to allow for a loaded machine, but not for one loaded
 *   by the suite itself;
 * - the package test compiles node-pty and better-sqlite3 twice (npm
 *   install -g, then npx) for minutes, on both cores.
 */
const ALONE = ['test/e2e/fleet.test.ts', 'test/bench/bench-smoke.test.ts', 'test/e2e/daemon-loop.test.ts', 'test/e2e/package.test.ts'];

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
