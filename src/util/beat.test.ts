import { afterEach, describe, expect, it, vi } from 'vitest';
import { backOff, Beat, gridPoint } from './beat.js';

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

describe('Beat grids', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps a task at its period when its timer fires late', () => {
    vi.useFakeTimers({ now: 0 });
    let late = 0;
    // The beat's clock runs ahead 3 ms more at every run: each wake-up comes a little after its point.
    const beat = new Beat(250, () => Date.now() + late);
    const runs: number[] = [];
    beat.every(1000, () => (runs.push(Date.now() + late), (late += 3), 1000));
    vi.advanceTimersByTime(10_000);
    expect(runs.length).toBeGreaterThanOrEqual(10);
    for (const t of runs) expect(t % 1000).toBe(0);
  });

  it('puts backed-off tasks on even seconds, in the wake-ups of a task every second', () => {
    vi.useFakeTimers({ now: 130 });
    const beat = new Beat(250);
    const wakeups = new Set<number>();
    const slow: number[] = [];
    beat.every(1000, () => (wakeups.add(Date.now()), 1000));
    const periods = [16_000, 23_417, 30_000, 17_250, 9_100];
    let i = 0;
    beat.every(periods[0]!, () => (slow.push(Date.now()), periods[++i % periods.length]!));
    const spy = vi.spyOn(globalThis, 'setTimeout');
    vi.advanceTimersByTime(120_000);
    expect(slow.length).toBeGreaterThanOrEqual(5);
    for (const t of slow) {
      expect(t % 2000).toBe(0);
      expect(wakeups.has(t)).toBe(true);
    }
    // Each gap within a quarter of what the task asked for.
    for (let k = 1; k < slow.length; k++) {
      const asked = periods[k % periods.length]!;
      expect(Math.abs(slow[k]! - slow[k - 1]! - asked)).toBeLessThanOrEqual(asked / 4);
    }
    // One timer a second: the slow task adds no wake-up of its own.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(121);
  });

  it('places on the coarsest grid within a quarter of the period, else its own', () => {
    expect(gridPoint(23_417, 23_417, 250)).toBe(24_000);
    expect(gridPoint(3_000, 2_000, 250)).toBe(3_000);
    expect(gridPoint(1_130, 1_000, 250)).toBe(1_000);
    expect(gridPoint(1_300, 1_000, 250)).toBe(1_000);
    // Half a second off: moved onto the whole seconds, not left between them for good.
    expect(gridPoint(2_503, 1_000, 250)).toBe(3_000);
    expect(gridPoint(1_600, 1_200, 250)).toBe(2_000);
    expect(gridPoint(1_700, 1_000, 100)).toBe(2_000);
    expect(gridPoint(2_250, 1_000, 250)).toBe(2_000);
    expect(gridPoint(130, 100, 250)).toBe(250);
    expect(gridPoint(600, 100, 100)).toBe(600);
    expect(gridPoint(700, 400, 250)).toBe(750);
  });
});

describe('Beat slices', () => {
  it('lets the event loop in between the tasks of one wake-up once they have run for a few ms, and runs each once', async () => {
    const beat = new Beat(50);
    const order: string[] = [];
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const done = new Promise<void>((resolve) => {
      for (let i = 0; i < 6; i++) {
        beat.every(50, () => {
          order.push(`task${i}`);
          if (i === 0) setImmediate(() => order.push('io'));
          busy(3);
          if (i === 5) resolve();
          return undefined;
        });
      }
    });
    await done;
    expect(order.filter((o) => o.startsWith('task'))).toEqual(['task0', 'task1', 'task2', 'task3', 'task4', 'task5']);
    // The immediate queued by the first task ran before the wake-up's last task: the beat yielded.
    expect(order.indexOf('io')).toBeGreaterThan(0);
    expect(order.indexOf('io')).toBeLessThan(order.indexOf('task5'));
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
