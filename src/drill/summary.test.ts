import { describe, expect, it } from 'vitest';
import type { ActionEntry, ScenarioResult, TimelineEntry } from './scenario-result.js';
import { formatSummary, summarise } from './summary.js';

const action = (kind: string, reason: string, cls: string | null, t: number, since: number): ActionEntry => ({
  t, kind, rule: null, class: cls, prompt: null, text: '', reason, since, layer: 'x', why: 'y',
});
function result(o: { actions?: ActionEntry[]; timeline?: TimelineEntry[]; mustNotBlock?: boolean }): ScenarioResult {
  const actions = o.actions ?? [];
  return {
    file: 'f.cast', duration: 10, final: { state: 'done', reason: 'exit' },
    timeline: o.timeline ?? [{ t: 0, state: 'running', reason: 'started' }],
    actions,
    time_to_alert: actions[0] ? actions[0].t - actions[0].since : null,
    passed: true, failures: [], must_not_block: o.mustNotBlock ?? false,
  };
}

describe('drill summary (issue 9.7)', () => {
  it('groups each scenario by its first alert, with min, median and max time to alert', () => {
    const s = summarise([
      result({ actions: [action('escalate', 'prompt', 'destructive', 2, 0.5)] }),
      result({ actions: [action('answer', 'prompt', 'dependency', 3, 1.5)] }),
      result({ actions: [action('escalate', 'prompt', 'destructive', 4, 1), action('escalate', 'hung', null, 900, 0)] }),
      result({ actions: [action('escalate', 'prompt', 'destructive', 5, 3)] }),
      result({
        actions: [action('escalate', 'unknown-dialog', 'unknown', 2, 0.1)],
        timeline: [{ t: 2, state: 'blocked', reason: 'unknown-dialog', class: 'unknown', detail: 'menu' }],
      }),
      result({ mustNotBlock: true }),
      result({ mustNotBlock: true, timeline: [{ t: 1, state: 'blocked', reason: 'hung' }] }),
    ]);
    expect(s.by_class).toEqual([
      { alert: 'prompt/dependency', scenarios: 1, answered: 1, escalated: 0, min: 1.5, median: 1.5, max: 1.5 },
      { alert: 'prompt/destructive', scenarios: 3, answered: 0, escalated: 3, min: 1.5, median: 2, max: 3 },
      { alert: 'unknown-dialog/menu', scenarios: 1, answered: 0, escalated: 1, min: 1.9, median: 1.9, max: 1.9 },
    ]);
    expect(s).toMatchObject({ must_not_fire: 2, false_blocks: 1, no_alert: 2 });
    expect(formatSummary(s)).toContain('false blocks: 1 of 2 must-not-fire scenario(s)');
  });
});
