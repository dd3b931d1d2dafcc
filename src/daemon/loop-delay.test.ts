import { afterEach, describe, expect, it, vi } from 'vitest';
import { Beat } from '../util/beat.js';
import { LoopDelay } from './loop-delay.js';
import { until } from '../../test/helpers/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LoopDelay', () => {
  it('sees a thread held for 150 ms, and starts afresh after a reset', async () => {
    const d = new LoopDelay();
    await sleep(50);
    const until = Date.now() + 150;
    while (Date.now() < until); // the stall the daemon must never have
    await sleep(50);
    const before = d.report(true);
    expect(before.max_ms).toBeGreaterThanOrEqual(120);
    expect(before.samples).toBeGreaterThan(0);
    await sleep(100);
    const after = d.report();
    d.stop();
    expect(after.max_ms).toBeLessThan(before.max_ms);
    expect(Date.parse(after.since)).toBeGreaterThan(Date.parse(before.since));
  });

  describe('watches only while the loop works', () => {
    afterEach(() => vi.useRealTimers());

    it('stops after 10 idle seconds in a row, and starts again after two seconds of work, not one', () => {
      vi.useFakeTimers({ now: 0 });
      let use = 0;
      const d = new LoopDelay({ beat: new Beat(100), utilization: () => use });
      expect(d.watching).toBe(true);
      vi.advanceTimersByTime(9_000);
      expect(d.watching).toBe(true);
      vi.advanceTimersByTime(1_000);
      expect(d.watching).toBe(false);
      // One busy second in thirty (idle jobs' checks on one beat) does not start it.
      for (let beat = 0; beat < 3; beat++) {
        use = 0.3;
        vi.advanceTimersByTime(1_000);
        use = 0;
        vi.advanceTimersByTime(29_000);
        expect(d.watching).toBe(false);
      }
      use = 0.3;
      vi.advanceTimersByTime(1_000);
      expect(d.watching).toBe(false);
      vi.advanceTimersByTime(1_000);
      expect(d.watching).toBe(true);
      // Its own timer's share (~1 %) does not keep it going; once off, 2 % starts it.
      use = 0.02;
      vi.advanceTimersByTime(9_000);
      expect(d.watching).toBe(true);
      vi.advanceTimersByTime(1_000);
      expect(d.watching).toBe(false);
      vi.advanceTimersByTime(2_000);
      expect(d.watching).toBe(true);
      d.stop();
      expect(d.watching).toBe(false);
    });
  });

  it('a pause in watching is not a delay: each spell has its own histogram, and the report joins them', async () => {
    let use = 0;
    const d = new LoopDelay({ beat: new Beat(10), utilization: () => use, checkMs: 10 });
    await until(() => !d.watching, 5_000, 'the watch to stop');
    const first = d.report();
    // A pause of a second: a re-enabled histogram would count it as one delay of ≥ 1000 ms.
    await sleep(1_000);
    use = 0.5;
    await until(() => d.watching && d.report().samples > first.samples + 5, 5_000, 'the watch to start and take samples');
    const both = d.report();
    d.stop();
    expect(both.max_ms).toBeLessThan(800);
    expect(both.p99_ms).toBeLessThanOrEqual(both.max_ms);
  });
});
