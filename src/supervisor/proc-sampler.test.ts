import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Beat } from '../util/beat.js';
import { MAX_SAMPLE_MS, ProcSampler, spread } from './proc-sampler.js';
import { SystemClock } from './system-clock.js';
import { until } from '../../test/helpers/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ProcSampler: reads a quiet tree ever less often', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('backs off while nothing moves, comes back to its pace on output, and reads afresh when asked', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(child);
    const reads: number[] = [];
    const clock = new SystemClock();
    const sampler = new ProcSampler(child.pid!, clock, { busy: () => undefined, foreground: () => undefined, tree: () => reads.push(clock.now()) }, {}, new Beat(5));
    sampler.start(20);
    await sleep(1_000);
    // At a steady 20 ms that would be ~50 reads; backing off (20, 40, 80, …, spread 50-100 %) it is far fewer.
    const quiet = reads.length;
    expect(quiet).toBeGreaterThanOrEqual(3);
    expect(quiet).toBeLessThan(25);
    const gaps = reads.slice(1).map((t, i) => t - reads[i]!);
    expect(Math.max(...gaps)).toBeGreaterThan(100);
    sampler.poke();
    const poked = reads.length;
    await until(() => reads.length > poked, 2_000, 'a read soon after output');
    // A decision's reading is never older than the base interval.
    sampler.fresh();
    expect(clock.now() - reads.at(-1)!).toBeLessThanOrEqual(20);
    sampler.stop();
    const stopped = reads.length;
    await sleep(200);
    expect(reads.length).toBe(stopped);
  });

  it('spreads backed-off intervals by job, never past the interval itself', () => {
    const spreads = [101, 202, 303, 404, 505, 606].map((pid) => spread(MAX_SAMPLE_MS, pid));
    expect(new Set(spreads).size).toBe(spreads.length);
    for (const s of spreads) {
      expect(s).toBeGreaterThanOrEqual(MAX_SAMPLE_MS / 2);
      expect(s).toBeLessThanOrEqual(MAX_SAMPLE_MS);
    }
    expect(spread(8_000, 4242)).toBe(spread(8_000, 4242));
  });
});
