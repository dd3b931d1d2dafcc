/**
 * The wrap-up reserve: at a share of a budget (steps, tokens, wall) the
 * agent is asked once to stop exploring and write its hand-off, so a job
 * stopped at 100 % still leaves the agent's own account of where it is.
 * Pure: the callers count, this says when and what.
 */
import { formatDuration } from '../util/duration.js';
import type { Verdict } from '../probes/types.js';

export const WRAP_UP = 'wrap-up';

export type WrapBudget = 'steps' | 'tokens' | 'wall';

/**
 * Whether `used` of `cap` has reached the reserve while some of the budget is left: at the cap the
 * hard stop comes next, not a request (and a budget too small to hold a reserve, 2 steps, gets none).
 */
export function wrapUpDue(used: number, cap: number | null, share: number | null): boolean {
  if (share === null || cap === null || !Number.isFinite(cap) || cap <= 0) return false;
  return used >= share * cap && used < cap;
}

/** When the reserve of a wall budget starts, ms after the job started; null without one. */
export function wrapUpAt(capMs: number | null, share: number | null): number | null {
  return share === null || capMs === null ? null : Math.ceil(share * capMs);
}

const amount = (b: WrapBudget, n: number): string => (b === 'wall' ? formatDuration(n) : b === 'steps' ? `${n} tool calls` : `${n} tokens`);
const NAMES: Record<WrapBudget, string> = { steps: 'step', tokens: 'token', wall: 'wall-clock' };

/** The one line typed to the agent. */
export function wrapUpText(b: WrapBudget, used: number, cap: number): string {
  return `nightshift: this job has used ${amount(b, used)} of its ${NAMES[b]} budget of ${amount(b, cap)} and stops at the limit. Stop exploring now and write your hand-off: what is verified, what is not, the next step, and where the work is (files, branch).`;
}

/** The wrap-up as a verdict (evidence, stats): `evidence` the event that crossed the reserve, if an agent event did. */
export function wrapUpVerdict(b: WrapBudget, used: number, cap: number, evidence: readonly string[]): Verdict {
  return { probe: WRAP_UP, severity: 'info', message: `${b} budget at ${Math.round((used / cap) * 100)}% (${amount(b, used)} of ${amount(b, cap)}): asked for a hand-off`, evidence, turn: null };
}
