import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineTimer, type DeadlineSource } from './deadline-timer.js';

/** A source whose deadline the test moves, recording when it was ticked and whether anything was due then. */
function source(due: number | undefined): DeadlineSource & { due: number | undefined; ticks: Array<{ at: number; due: boolean }> } {
  const s = {
    due,
    ticks: [] as Array<{ at: number; due: boolean }>,
    nextDeadline: () => s.due,
    tick: () => {
      const now = Date.now();
      const isDue = s.due !== undefined && now >= s.due;
      s.ticks.push({ at: now, due: isDue });
      if (isDue) s.due = undefined;
    },
  };
  return s;
}

const clock = { now: () => Date.now() };

describe('DeadlineTimer', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('keeps its timer while deadlines only move later (a flood arms it on every chunk), and still ticks at the later deadline', () => {
    const s = source(1_000_100);
    const timer = new DeadlineTimer(s, clock);
    const set = vi.spyOn(globalThis, 'setTimeout');
    timer.arm();
    for (let i = 1; i <= 50; i++) {
      s.due = 1_000_100 + i * 10;
      timer.arm();
    }
    expect(set).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(101);
    // Fired early: nothing due yet, and armed again for the deadline as it is now.
    expect(s.ticks).toEqual([{ at: 1_000_101, due: false }]);
    vi.advanceTimersByTime(500);
    expect(s.ticks.at(-1)).toEqual({ at: 1_000_601, due: true });
    expect(s.due).toBeUndefined();
    timer.stop();
  });

  it('arms again at once for a deadline earlier than the one it waits for, and the source ticks then', () => {
    const s = source(1_060_000);
    const timer = new DeadlineTimer(s, clock);
    timer.arm();
    s.due = 1_000_050;
    timer.arm();
    vi.advanceTimersByTime(51);
    expect(s.ticks).toEqual([{ at: 1_000_051, due: true }]);
    timer.stop();
  });

  it('with several sources, ticks at the earliest; stop() ends it', () => {
    const a = source(1_000_300);
    const b = source(1_000_200);
    const before = vi.fn();
    const timer = new DeadlineTimer([a, b], clock, before);
    timer.arm();
    vi.advanceTimersByTime(201);
    expect(b.ticks).toEqual([{ at: 1_000_201, due: true }]);
    expect(before).toHaveBeenCalledTimes(1);
    timer.stop();
    vi.advanceTimersByTime(1_000);
    expect(a.ticks).toEqual([{ at: 1_000_201, due: false }]);
  });
});
