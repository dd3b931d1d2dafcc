import { describe, expect, it } from 'vitest';
import { config, ctx, defaultProfile as P, ev, trajectory } from '../../test/fixtures/trajectories/load.js';
import { budgetOverrun, overrunBudget } from './budget-overrun.js';

const migration = trajectory('long-migration.jsonl');

describe('budget-overrun', () => {
  it('fires under the default profile, citing the 81st call and the usage that crossed 6M tokens', () => {
    const [v, ...rest] = budgetOverrun(migration, P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ probe: 'budget-overrun', severity: 'critical', turn: null, evidence: ['m0242', 'm0343'] });
    expect(v!.message).toContain('120/80 tool calls');
    expect(v!.message).toContain('6408000/6000000 tokens');
  });

  it('lets the same long legitimate task run under the long-task profile', () => {
    expect(budgetOverrun(migration, config.profile('long-task'), ctx())).toEqual([]);
  });

  it('does not fire once the job is finished (the last event is a turn-end, or the caller says so)', () => {
    expect(budgetOverrun([...migration, ev.end('done', 'Migrated all 40 modules.')], P, ctx())).toEqual([]);
    expect(budgetOverrun(migration, P, ctx({ jobFinished: true }))).toEqual([]);
    // A turn ended but the caller knows the job goes on (it is about to nudge): still over budget.
    expect(budgetOverrun([...migration, ev.end('done', '')], P, ctx({ jobFinished: false }))).toHaveLength(1);
  });

  it('counts the whole job: a new turn does not refill the budget', () => {
    const calls = (p: string, n: number) => Array.from({ length: n }, (_, i) => ev.call(`${p}${i}`, 'Read', { i }));
    const events = [ev.start('s1'), ...calls('a', 7), ev.end('e1'), ev.start('s2', 'continue'), ...calls('b', 6)];
    expect(budgetOverrun(events, config.profile('quick'), ctx())[0]!.evidence).toEqual(['b5']);
  });

  it('fires on tokens alone', () => {
    const events = [ev.start('s'), ev.usage('u1', 500_000, 1_000), ev.usage('u2', 300_000, 1_000)];
    expect(budgetOverrun(events, config.profile('quick'), ctx())).toEqual([
      expect.objectContaining({ evidence: ['u2'], message: expect.stringContaining('802000/800000 tokens') }),
    ]);
  });

  it('names the budget it is about: tokens alone is tokens, calls (alone or with tokens) are steps', () => {
    const tokens = budgetOverrun([ev.start('s'), ev.usage('u1', 900_000, 30)], config.profile('quick'), ctx());
    expect(overrunBudget(tokens[0]!)).toBe('tokens');
    expect(overrunBudget(budgetOverrun(migration, P, ctx())[0]!)).toBe('steps');
  });

  it('goes on from what was spent before the events it is given (an adopted job)', () => {
    const quick = config.profile('quick');
    const calls = Array.from({ length: 2 }, (_, i) => ev.call(`c${i}`, 'Read', { i }));
    expect(budgetOverrun([ev.start('s'), ...calls], quick, ctx())).toEqual([]);
    const [v] = budgetOverrun([ev.start('s'), ...calls], quick, ctx({ spentBefore: { steps: quick.maxSteps - 1, tokens: 0 } }));
    expect(v!.message).toContain(`${quick.maxSteps + 1}/${quick.maxSteps} tool calls`);
    expect(v!.evidence).toEqual(['c1']);
  });
});
