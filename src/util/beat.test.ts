import { afterEach, describe, expect, it, vi } from 'vitest';
import { backOff, Beat } from './beat.js';

describe('Beat', () => {
  afterEach(() => vi.useRealTimers());

  it('runs tasks that fall due in one grid step in one wake-up, each at its own period', () => {
    vi.useFakeTimers({ now: 0 });
    const beat = new Beat(250);
    const runs: string[] = [];
    const spy = vi.spyOn(globalThis, 'setTimeout');
    beat.every(1000, () => (runs.push(`a@${Date.now()}`), 1000));
    vi.advanceTimersByTime(130);
    beat.every(800, () => (runs.push(`b@${Date.now()}`), 2000));
    vi.advanceTimersByTime(3000);
    expect(runs).toEqual(['a@1000', 'b@1000', 'a@2000', 'a@3000', 'b@3000']);
    // One timer per wake-up (1000, 2000, 3000), never one per task.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(4);
  });

  it('stops a task that returns undefined or is disposed, and a reschedule moves it', () => {
    vi.useFakeTimers({ now: 0 });
    const beat = new Beat(100);
    let a = 0;
    let b = 0;
    beat.every(100, () => (++a < 2 ? 100 : undefined));
    const tb = beat.every(1000, () => (b++, 1000));
    vi.advanceTimersByTime(500);
    expect(a).toBe(2);
    tb.reschedule(100);
    vi.advanceTimersByTime(100);
    expect(b).toBe(1);
    tb.dispose();
    vi.advanceTimersByTime(5000);
    expect(b).toBe(1);
    expect(tb.due).toBeUndefined();
  });

  it('a task that throws stops alone; the others go on', () => {
    vi.useFakeTimers({ now: 0 });
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const beat = new Beat(100);
    let good = 0;
    beat.every(100, () => {
      throw new Error('boom');
    });
    beat.every(100, () => (good++, 100));
    vi.advanceTimersByTime(300);
    expect(good).toBe(3);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/boom/);
  });
});

describe('backOff', () => {
  it('doubles while nothing changes, up to the cap, and is back at the base on a change', () => {
    const steps: number[] = [];
    let ms = 1000;
    for (const changed of [false, false, false, false, false, true, false]) steps.push((ms = backOff(ms, changed, 1000, 8000)));
    expect(steps).toEqual([2000, 4000, 8000, 8000, 8000, 1000, 2000]);
  });
});
