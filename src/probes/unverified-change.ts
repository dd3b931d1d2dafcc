/**
 * unverified-change: the turn changed files and then finished without a
 * successful read, test or list call after its last write. "Verified" needs
 * evidence from a tool; saying so in the reply does not count. A shell line
 * that writes and then checks (`sed -i … && npm test`) verifies itself.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { checksAfterWrite, writes } from './roles.js';
import { resultsOf, type ResultStep } from './steps.js';
import { turnsOf } from './turns.js';
import type { ProbeContext, ProbeProfile, Verdict } from './types.js';

export const UNVERIFIED_CHANGE = 'unverified-change';

export function unverifiedChange(events: readonly AgentEvent[], profile: ProbeProfile, _ctx?: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  for (const turn of turnsOf(events)) {
    if (!turn.end) continue;
    const lastWrite = unverifiedWrite(resultsOf(turn, profile.rules));
    if (!lastWrite) continue;
    out.push({
      probe: UNVERIFIED_CHANGE,
      severity: 'warn',
      message: `the turn finished after changing files (${lastWrite.result.tool}) with no successful read, test or list call after the last change`,
      evidence: [lastWrite.call?.id, lastWrite.result.id, turn.end.id].filter((id): id is string => id !== undefined),
      turn: turn.id,
    });
  }
  return out;
}

/** The last successful write if no successful check came after it. */
function unverifiedWrite(results: readonly ResultStep[]): ResultStep | null {
  let pending: ResultStep | null = null;
  for (const r of results) {
    if (!r.result.ok) continue;
    if (writes(r.info)) pending = checksAfterWrite(r.info) ? null : r;
    else if (checksAfterWrite(r.info)) pending = null;
  }
  return pending;
}

export type Verification = 'verified' | 'unverified' | 'nothing-changed';

/**
 * What the job as a whole verified: `verified` only when it changed files
 * and a successful check followed the last change of every turn that made
 * one; a job that changed nothing verified nothing (a loop of `ls` is not
 * verified work).
 */
export function verificationOf(events: readonly AgentEvent[], profile: ProbeProfile): Verification {
  let changed = false;
  for (const turn of turnsOf(events)) {
    const results = resultsOf(turn, profile.rules);
    if (!results.some((r) => r.result.ok && writes(r.info))) continue;
    changed = true;
    if (unverifiedWrite(results)) return 'unverified';
  }
  return changed ? 'verified' : 'nothing-changed';
}
