import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, TaskStateMachine, isLegal } from './task-state.js';

describe('TaskStateMachine', () => {
  it('walks queued → running ⇄ blocked → done with a reason on every state', () => {
    const sm = new TaskStateMachine(0);
    expect(sm.state).toBe('queued');
    expect(sm.reason.code).toBe('submitted');
    sm.transition('running', { code: 'started' }, 1);
    sm.transition('blocked', { code: 'prompt', rule: 'npx-install', class: 'dependency' }, 2);
    sm.transition('running', { code: 'prompt-cleared' }, 3);
    sm.transition('blocked', { code: 'hung' }, 4);
    sm.transition('done', { code: 'exit', exitCode: 0 }, 5);
    expect(sm.history.map((t) => `${t.to}:${t.reason.code}`)).toEqual([
      'queued:submitted', 'running:started', 'blocked:prompt', 'running:prompt-cleared', 'blocked:hung', 'done:exit',
    ]);
  });

  it('rejects moves not in the table', () => {
    const sm = new TaskStateMachine(0);
    expect(() => sm.transition('blocked', { code: 'hung' }, 1)).toThrow(IllegalTransitionError);
    sm.transition('done', { code: 'cancelled' }, 1);
    expect(() => sm.transition('running', { code: 'started' }, 2)).toThrow(/illegal transition done → running/);
  });

  it('rejects reasons that do not belong to the target state', () => {
    expect(isLegal('running', 'blocked', { code: 'started' })).toBe(false);
    expect(isLegal('running', 'done', { code: 'hung' })).toBe(false);
    expect(isLegal('running', 'blocked', { code: 'prompt' })).toBe(false); // prompt needs its rule
    expect(isLegal('running', 'done', { code: 'budget:wall' })).toBe(true);
  });

  it('refuses time going backwards', () => {
    const sm = new TaskStateMachine(10);
    expect(() => sm.transition('running', { code: 'started' }, 5)).toThrow(RangeError);
  });
});
