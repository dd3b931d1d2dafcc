import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { killTree } from '../../test/helpers/pty-tree.js';
import { PtyHost } from '../pty/host.js';
import { readsTerminal } from '../pty/tty-read.js';
import { Beat } from '../util/beat.js';
import { MAX_SAMPLE_MS, ProcSampler, spread } from './proc-sampler.js';
import { SystemClock } from './system-clock.js';

describe('ProcSampler: reads a quiet tree ever less often', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('backs off while nothing moves, comes back to its pace on output, and reads afresh when asked', () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(child);
    // Fake time (the beat's timers, the clock) over a real process tree: the counts are exact, whatever the load.
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const reads: number[] = [];
    const clock = new SystemClock();
    const sampler = new ProcSampler(child.pid!, clock, { busy: () => undefined, foreground: () => undefined, tree: () => reads.push(clock.now()) }, {}, new Beat(5));
    sampler.start(20);
    vi.advanceTimersByTime(1_000);
    // At a steady 20 ms that would be ~50 reads; backing off (20, 40, 80, …, spread 50-100 %) it is far fewer.
    expect(reads.length).toBeGreaterThanOrEqual(4);
    expect(reads.length).toBeLessThan(25);
    const gaps = reads.slice(1).map((t, i) => t - reads[i]!);
    expect(Math.max(...gaps)).toBeGreaterThan(100);
    sampler.poke();
    const poked = reads.length;
    vi.advanceTimersByTime(25);
    expect(reads.length).toBe(poked + 1);
    // A decision's reading is never older than the base interval.
    vi.advanceTimersByTime(21);
    sampler.fresh();
    expect(clock.now() - reads.at(-1)!).toBeLessThanOrEqual(20);
    sampler.stop();
    const stopped = reads.length;
    vi.advanceTimersByTime(5_000);
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

describe('ProcSampler: whether the foreground reads the terminal', () => {
  let host: PtyHost | undefined;
  afterEach(() => {
    vi.useRealTimers();
    if (host) killTree(host);
    host = undefined;
  });

  it('a periodic reading of an unchanged foreground process keeps the answer; an asked reading looks afresh', async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() };
    host = PtyHost.spawn({ command: 'bash', args: ['-c', 'read -p "Continue? [y/N] " a'], cwd: tmpdir(), env, cols: 80, rows: 24 });
    const pid = host.pid;
    const deadline = Date.now() + 10_000;
    while (readsTerminal(pid, 'S') !== true) {
      if (Date.now() > deadline) throw new Error('bash never sat in its read');
      await new Promise((r) => setTimeout(r, 20));
    }
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    let looks = 0;
    const answers: boolean[] = [];
    const sampler = new ProcSampler(pid, new SystemClock(), { busy: () => undefined, foreground: () => undefined, ttyRead: (r) => answers.push(r) }, {}, new Beat(5), (p, state) => {
      looks++;
      return readsTerminal(p, state);
    });
    sampler.start(20);
    vi.advanceTimersByTime(1_000);
    // One look at the start; the periodic readings of a bash still in its read (same pid, state, ticks) reuse it.
    expect(looks).toBe(1);
    expect(answers).toEqual([true]);
    sampler.sampleNow();
    expect(looks).toBe(2);
    sampler.stop();
  });
});
