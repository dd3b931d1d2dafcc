/** on_unanswered's clock: pure, on a ManualClock. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { PromptRule } from './prompt-match.js';
import type { Transition } from './task-state.js';
import { unansweredDeadline, UnansweredWatch, type OnUnanswered } from './unanswered.js';
import type { Action } from './watchdog-types.js';

const H = 3_600_000;
const rule = (id: string, decline: string[], answer = ['y', 'enter']) => ({ id, decline, answer }) as unknown as PromptRule;
const yn = rule('yes-no', ['n', 'enter']);
const noDecline = rule('press-enter', []);
const setting: OnUnanswered = { afterMs: 2 * H, do: 'decline' };
const escalate = (t: number, over: Partial<Action> = {}): Action =>
  ({ t, kind: 'escalate', rule: 'yes-no', class: 'confirm', prompt: 'Delete? [y/N]', text: '', reason: 'prompt', since: t, screen: [], layer: 'x', why: 'y', ...over }) as Action;
const leave = (t: number, to: Transition['to'] = 'running'): Transition => ({ t, from: 'blocked', to, reason: { code: 'prompt-cleared' } }) as Transition;

function watch(opts: { rule?: PromptRule | undefined; setting?: OnUnanswered | null; start?: number } = {}) {
  const clock = new ManualClock(opts.start ?? 0);
  const host = { rule: 'rule' in opts ? opts.rule : yn, setting: opts.setting === undefined ? setting : opts.setting };
  const w = new UnansweredWatch(clock, { setting: () => host.setting, blockedRule: () => host.rule });
  return { w, clock, host };
}

describe('unansweredDeadline', () => {
  const open = { rule: 'yes-no', pagedAt: 1_000, lastPersonAt: null };
  it('is the page time plus after, or a person\'s later act plus after', () => {
    expect(unansweredDeadline(setting, open, yn)).toBe(1_000 + 2 * H);
    expect(unansweredDeadline(setting, { ...open, lastPersonAt: 5_000 }, yn)).toBe(5_000 + 2 * H);
  });
  it('is never for no setting, nothing paged, no rule, another rule, or a rule without decline keys', () => {
    expect(unansweredDeadline(null, open, yn)).toBeUndefined();
    expect(unansweredDeadline(setting, null, yn)).toBeUndefined();
    expect(unansweredDeadline(setting, open, undefined)).toBeUndefined();
    expect(unansweredDeadline(setting, open, rule('other', ['n']))).toBeUndefined();
    expect(unansweredDeadline(setting, { ...open, rule: 'press-enter' }, noDecline)).toBeUndefined();
  });
});

describe('UnansweredWatch', () => {
  it('names the rule to decline once, at the deadline exactly', () => {
    const { w, clock } = watch({ start: 10 });
    w.action(escalate(10));
    expect(w.nextDeadline()).toBe(10 + 2 * H);
    clock.set(9 + 2 * H);
    expect(w.tick()).toBeNull();
    clock.set(10 + 2 * H);
    expect(w.tick()).toBe('yes-no');
    expect(w.tick()).toBeNull();
    expect(w.nextDeadline()).toBeUndefined();
  });

  it('an automatic answer is no page: nothing starts', () => {
    const { w } = watch();
    w.action(escalate(0, { kind: 'answer' }));
    expect(w.nextDeadline()).toBeUndefined();
  });

  it('a prompt whose rule has no decline keys, or no rule at all, never comes due', () => {
    const a = watch({ rule: noDecline });
    a.w.action(escalate(0, { rule: 'press-enter' }));
    a.clock.set(100 * H);
    expect(a.w.nextDeadline()).toBeUndefined();
    expect(a.w.tick()).toBeNull();
    const b = watch({ rule: undefined });
    b.w.action(escalate(0, { reason: 'unknown-prompt', rule: null }));
    b.clock.set(100 * H);
    expect(b.w.tick()).toBeNull();
  });

  it('leaving the block, or another escalation, ends the wait', () => {
    const a = watch();
    a.w.action(escalate(0));
    a.w.transition(leave(5));
    a.clock.set(3 * H);
    expect(a.w.tick()).toBeNull();
    const b = watch();
    b.w.action(escalate(0));
    b.w.action(escalate(1, { reason: 'probe:loop', rule: null }));
    b.clock.set(3 * H);
    expect(b.w.tick()).toBeNull();
  });

  it('a person at the job restarts the wait; the setting and rule are read at each look (a policy reload)', () => {
    const { w, clock, host } = watch();
    w.action(escalate(0));
    clock.set(H);
    w.person();
    expect(w.nextDeadline()).toBe(3 * H);
    host.setting = { afterMs: H, do: 'decline' };
    expect(w.nextDeadline()).toBe(2 * H);
    host.setting = null;
    clock.set(10 * H);
    expect(w.tick()).toBeNull();
  });
});
