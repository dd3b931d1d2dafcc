import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { Watchdog } from '../../src/core/watchdog.js';
import type { Action } from '../../src/core/watchdog-types.js';
import { Responder } from '../../src/responder/responder.js';
import { loadRules } from '../../src/rules/load.js';
import { parsePolicy } from '../../src/rules/policy-file.js';
import { CORPUS, CORPUS_POLICY, type CorpusCase } from '../fixtures/prompt-corpus.js';
import { RULES_DIR } from '../helpers/rules.js';
import { snapshotOf } from '../helpers/snapshot.js';

const rules = await loadRules(RULES_DIR);
const policy = parsePolicy(CORPUS_POLICY, 'corpus-policy.yaml');

/** The whole path a live job takes: screen → watchdog → responder, in virtual time, 20 minutes. */
function firstAction(c: CorpusCase): Action | undefined {
  const clock = new ManualClock(0);
  const wd = new Watchdog(rules, clock, undefined, { responder: new Responder(rules.risks, policy), env: c.env ?? {} });
  wd.start();
  wd.observe({ kind: 'foreground', program: c.fg });
  wd.observe({ kind: 'screen', snapshot: snapshotOf(c.screen, c.cursor ? { cursor: c.cursor } : {}) });
  for (let d = wd.nextDeadline(); d !== undefined && d <= 20 * 60_000 && wd.actions.length === 0; d = wd.nextDeadline()) {
    clock.set(d);
    wd.tick();
  }
  return wd.actions[0];
}

const results = CORPUS.map((c) => ({ c, a: firstAction(c) }));

describe(`responder corpus (${CORPUS.length} prompt screens)`, () => {
  it('has at least 100 screens', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(100);
  });

  it('answers exactly zero destructive prompts', () => {
    const answered = results.filter(({ c, a }) => c.class === 'destructive' && a?.kind === 'answer');
    expect(answered.map(({ c }) => c.name)).toEqual([]);
  });

  it('answers nothing that is not an allow-listed dependency install', () => {
    const wrong = results.filter(({ c, a }) => c.expect === 'escalate' && a?.kind !== 'escalate');
    expect(wrong.map(({ c, a }) => `${c.name}: ${a?.kind ?? 'no action'} ${a?.why ?? ''}`)).toEqual([]);
  });

  it.each(results.filter(({ c }) => c.expect === 'answer').map(({ c, a }) => [c.name, c, a] as const))(
    'answers %s with the rule\'s keys',
    (_name, c, a) => {
      expect(a, 'an action').toBeDefined();
      expect({ kind: a!.kind, why: a!.why, keys: a!.keys }).toMatchObject({ kind: 'answer', keys: c.keys });
      expect(a!.class).toBe('dependency');
    },
  );

  it.each(results.filter(({ a }) => a?.reason === 'prompt').map(({ c, a }) => [c.name, c.class, a!.class] as const))(
    'classifies %s as %s',
    (_name, expected, actual) => {
      expect(actual).toBe(expected);
    },
  );
});
