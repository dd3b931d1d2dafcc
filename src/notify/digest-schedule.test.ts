import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { DigestSchedule } from './digest-schedule.js';

const local = (d: number, h: number, m = 0) => new Date(2025, 0, d, h, m).getTime();
const AT_0730 = 7 * 60 + 30;

/** Drives the schedule as the daemon's tick would, every `step` ms of virtual time until `end`; returns when each digest went. */
function night(s: DigestSchedule, clock: ManualClock, end: number, step = 60_000): number[] {
  const sent: number[] = [];
  for (let t = clock.now(); t <= end; t += step) {
    clock.set(t);
    const due = s.take(clock.now());
    if (due !== undefined) sent.push(due);
  }
  return sent;
}

describe('DigestSchedule (notify.digest_at) in virtual time', () => {
  it('fires once a day at the local time, never before it', () => {
    const clock = new ManualClock(local(14, 22));
    const s = new DigestSchedule(AT_0730, clock.now());
    expect(s.nextDeadline()).toBe(local(15, 7, 30));
    expect(night(s, clock, local(17, 12))).toEqual([local(15, 7, 30), local(16, 7, 30), local(17, 7, 30)]);
  });

  it('a daemon started after the time waits for the next day; one asleep through days sends one digest on waking', () => {
    const clock = new ManualClock(local(15, 8));
    const s = new DigestSchedule(AT_0730, clock.now());
    expect(s.nextDeadline()).toBe(local(16, 7, 30));
    expect(s.take(local(19, 9))).toBe(local(16, 7, 30));
    expect(s.take(local(19, 9, 1))).toBeUndefined();
    expect(s.nextDeadline()).toBe(local(20, 7, 30));
  });

  it('no digest_at: no deadline; a reload that sets one counts from then', () => {
    const s = new DigestSchedule(null, local(15, 1));
    expect(s.nextDeadline()).toBeUndefined();
    expect(s.take(local(16, 9))).toBeUndefined();
    s.reconfigure(AT_0730, local(16, 9));
    expect(s.nextDeadline()).toBe(local(17, 7, 30));
  });
});
