import { describe, expect, it } from 'vitest';
import { LoopDelay } from './loop-delay.js';

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
});
