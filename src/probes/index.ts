/**
 * All trajectory probes over one event stream. Pure: same events, profile
 * and context give the same verdicts, so a stored transcript can be re-judged.
 * Run it on the whole stream each time it grows; a verdict stays present
 * (with the same verdictKey) once it fired, so report each key once.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { alternation, ALTERNATION } from './alternation.js';
import { announceThenStop, ANNOUNCE_THEN_STOP } from './announce-then-stop.js';
import { budgetOverrun, BUDGET_OVERRUN } from './budget-overrun.js';
import { fakeCompletion, FAKE_COMPLETION } from './fake-completion.js';
import { noProgress, NO_PROGRESS } from './no-progress.js';
import { repeatedAction, REPEATED_ACTION } from './repeated-action.js';
import { repeatedFailure, REPEATED_FAILURE } from './repeated-failure.js';
import type { Probe, ProbeContext, ProbeProfile, Severity, Verdict } from './types.js';
import { unverifiedChange, UNVERIFIED_CHANGE } from './unverified-change.js';

export { turnsOf, type Turn } from './turns.js';
export { classifyCall, type CallInfo } from './roles.js';
export type * from './types.js';
export {
  alternation,
  announceThenStop,
  budgetOverrun,
  fakeCompletion,
  noProgress,
  repeatedAction,
  repeatedFailure,
  unverifiedChange,
};

/** Every probe by name, in the order runProbes reports them. */
export const PROBES: Readonly<Record<string, Probe>> = {
  [FAKE_COMPLETION]: fakeCompletion,
  [BUDGET_OVERRUN]: budgetOverrun,
  [REPEATED_FAILURE]: repeatedFailure,
  [REPEATED_ACTION]: repeatedAction,
  [ALTERNATION]: alternation,
  [NO_PROGRESS]: noProgress,
  [UNVERIFIED_CHANGE]: unverifiedChange,
  [ANNOUNCE_THEN_STOP]: announceThenStop,
};

export const PROBE_NAMES = Object.keys(PROBES);

const RANK: Record<Severity, number> = { critical: 0, warn: 1, info: 2 };

/** All probes' verdicts, most severe first (stable within a severity: probe order, then stream order). */
export function runProbes(events: readonly AgentEvent[], profile: ProbeProfile, ctx: ProbeContext): Verdict[] {
  const all = Object.values(PROBES).flatMap((probe) => probe(events, profile, ctx));
  return all.map((v, i) => ({ v, i })).sort((a, b) => RANK[a.v.severity] - RANK[b.v.severity] || a.i - b.i).map((x) => x.v);
}

/**
 * Identity of a verdict across re-runs on a growing stream: its probe, turn
 * and first evidence id. Severity and later evidence may grow; the key not.
 */
export function verdictKey(v: Verdict): string {
  return `${v.probe}|${v.turn ?? 'job'}|${v.evidence[0] ?? ''}`;
}
