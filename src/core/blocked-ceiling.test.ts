/** The ceiling on waiting, in virtual time: a ManualClock, no timers. */
import { describe, expect, it } from 'vitest';
import { BlockedCeiling, ceilingDeadlines, DEFAULT_MAX_BLOCKED_MS, warnBefore } from './blocked-ceiling.js';
import { ManualClock } from './clock.js';
import type { Transition } from './task-state.js';
import type { Action } from './watchdog-types.js';

const H = 3_600_000;
const M = 60_000;
const escalate = (t: number) => ({ t, kind: 'escalate', reason: 'prompt', rule: 'yes-no' }) as unknown as Action;
const leave = (t: number, to: Transition['to'] = 'running') => ({ t, from: 'blocked', to, reason: { code: 'prompt-cleared' } }) as Transition;

function ceiling(afterMs: number | null = 2 * H) {
  const clock = new ManualClock(0);
  const setting = { afterMs };
  return { c: new BlockedCeiling(clock, () => setting.afterMs), clock, setting };
}

describe('ceilingDeadlines', () => {
  it('warns 15 min before a long ceiling, a quarter before a short one', () => {
    expect(ceilingDeadlines(2 * H, 1_000)).toEqual({ warnAt: 1_000 + 2 * H - 15 * M, endAt: 1_000 + 2 * H });
    expect(warnBefore(4_000)).toBe(1_000);
    expect(DEFAULT_MAX_BLOCKED_MS).toBe(2 * H);
  });
});

describe('BlockedCeiling', () => {
  it('a parked job has no ceiling: nothing is asked, and letting it be is a person\'s choice', () => {
    const { c } = ceiling();
    c.action({ ...escalate(10 * M), reason: 'parked', rule: null });
    expect(c.nextDeadline()).toBeUndefined();
  });

  it('counts from the first page: warns once, then ends, then is done with the block', () => {
    const { c, clock } = ceiling();
    expect(c.nextDeadline()).toBeUndefined();
    c.action(escalate(10 * M));
    c.action(escalate(50 * M)); // a re-page of the same block does not move it
    expect(c.nextDeadline()).toBe(10 * M + 105 * M);
    clock.set(10 * M + 105 * M - 1);
    expect(c.tick()).toBeNull();
    clock.set(10 * M + 105 * M);
    expect(c.tick()).toEqual({ kind: 'warn', since: 10 * M, afterMs: 2 * H });
    expect(c.tick()).toBeNull();
    expect(c.nextDeadline()).toBe(10 * M + 2 * H);
    clock.set(10 * M + 2 * H);
    expect(c.tick()).toEqual({ kind: 'end', since: 10 * M, afterMs: 2 * H });
    expect(c.nextDeadline()).toBeUndefined();
  });

  it('a person acting starts the wait again; leaving the block ends it; blocked→blocked keeps it', () => {
    const { c, clock } = ceiling(H);
    c.action(escalate(0));
    clock.set(50 * M);
    expect(c.tick()?.kind).toBe('warn');
    c.person();
    expect(c.nextDeadline()).toBe(50 * M + 45 * M);
    c.transition(leave(55 * M, 'blocked'));
    expect(c.nextDeadline()).toBe(95 * M);
    c.transition(leave(56 * M));
    expect(c.nextDeadline()).toBeUndefined();
    c.person();
    expect(c.nextDeadline()).toBeUndefined();
  });

  it('no ceiling: never due; the setting is read each time (a job told off)', () => {
    const { c, setting } = ceiling(null);
    c.action(escalate(0));
    expect(c.nextDeadline()).toBeUndefined();
    setting.afterMs = 4 * M;
    expect(c.nextDeadline()).toBe(3 * M);
  });
});
