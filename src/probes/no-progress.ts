/**
 * no-progress: tool result after tool result that adds nothing new to the
 * task. New means a successful write, a test whose output changed, or a
 * result fingerprint not seen before in the turn (for a failure, its
 * masked error: repeated-failure.ts failureKey). Fingerprints come without
 * times, ids or token counts (the adapter masks them), otherwise everything
 * would look new forever and this probe would never speak.
 * Pollers are skipped: waiting on CI is neither progress nor a stall here
 * (the budget caps waiting).
 */
import type { AgentEvent } from '../core/agent-events.js';
import { writes } from './roles.js';
import { failureKey } from './repeated-failure.js';
import { resultsOf, type ResultStep } from './steps.js';
import { turnsOf } from './turns.js';
import type { ProbeContext, ProbeProfile, Verdict } from './types.js';

export const NO_PROGRESS = 'no-progress';

export function noProgress(events: readonly AgentEvent[], profile: ProbeProfile, _ctx?: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  for (const turn of turnsOf(events)) {
    for (const ids of staleRuns(resultsOf(turn, profile.rules))) {
      if (ids.length < profile.noProgress) continue;
      out.push({
        probe: NO_PROGRESS,
        severity: ids.length >= 2 * profile.noProgress ? 'critical' : 'warn',
        message: `${ids.length} tool results in a row brought nothing new (no write, no changed test result, no unseen output)`,
        evidence: ids,
        turn: turn.id,
      });
    }
  }
  return out;
}

/** Runs of consecutive results (pollers skipped) that brought nothing new. */
function staleRuns(results: readonly ResultStep[]): string[][] {
  const seen = new Set<string>();
  const lastTest = new Map<string, string>();
  const runs: string[][] = [];
  let run: string[] = [];
  for (const r of results) {
    if (r.info.role === 'poll') continue;
    if (isNew(r, seen, lastTest)) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else {
      run.push(r.result.id);
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function isNew(r: ResultStep, seen: Set<string>, lastTest: Map<string, string>): boolean {
  // A failure is new only if its masked error is: the same error on another file brings nothing.
  const fp = r.result.ok ? r.result.fingerprint : failureKey(r);
  let fresh = !seen.has(fp);
  seen.add(fp);
  if (r.result.ok && writes(r.info)) fresh = true;
  if (r.info.role === 'test') {
    const key = r.call?.canonical ?? r.result.tool;
    if (lastTest.has(key) && lastTest.get(key) !== fp) fresh = true;
    lastTest.set(key, fp);
  }
  return fresh;
}
