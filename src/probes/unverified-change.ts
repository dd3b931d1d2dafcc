/**
 * unverified-change: the turn changed files and then finished without a
 * successful check after its last write. "Verified" needs evidence from a
 * tool; saying so in the reply does not count. A shell line that writes and
 * then checks (`sed -i … && npm test`) verifies itself. Once a test has
 * failed in the turn, only a test that passes after the last write verifies
 * it: reading the files again does not make a failing test pass.
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
    const after = checkAfterLastWrite(resultsOf(turn, profile.rules));
    if (after.write === null || after.state === 'verified') continue;
    const lastWrite = after.write;
    const why =
      after.state === 'failed'
        ? `the last test after the last change failed (${after.check!.result.errorHead ?? after.check!.result.tool}); a read is no verification then`
        : after.testFailed
          ? 'no test passed after the last change, and a test had failed before it'
          : 'no successful read, test or list call after the last change';
    out.push({
      probe: UNVERIFIED_CHANGE,
      severity: 'warn',
      message: `the turn finished after changing files (${lastWrite.result.tool}): ${why}`,
      evidence: [lastWrite.call?.id, lastWrite.result.id, after.check?.result.id, turn.end.id].filter((id): id is string => id !== undefined),
      turn: turn.id,
    });
  }
  return out;
}

/** How the last write of a list of results was checked. */
export interface WriteCheck {
  /**
   * `verified`: a test passed after the last write, or no test failed in the
   * list and a successful read, test or list call came after it; `failed`:
   * the last test after it failed; `unchecked`: nothing that counts came
   * after it; `no-write`: nothing was written.
   */
  readonly state: 'verified' | 'failed' | 'unchecked' | 'no-write';
  /** The last successful write. */
  readonly write: ResultStep | null;
  /** The check that decided `verified` or `failed`. */
  readonly check: ResultStep | null;
  /** A test failed somewhere in the list and none passed since. */
  readonly testFailed: boolean;
}

/**
 * "A successful verification after the last write", the one definition of it
 * (results in order: one turn's, or whatever span the caller judges). Only
 * successful evidence counts, and a failed test is not outweighed by reads.
 */
export function checkAfterLastWrite(results: readonly ResultStep[]): WriteCheck {
  let write: ResultStep | null = null;
  let check: ResultStep | null = null;
  let state: WriteCheck['state'] = 'no-write';
  let testFailed = false;
  for (const r of results) {
    const test = r.info.steps.includes('test');
    if (test) testFailed = !r.result.ok;
    if (r.result.ok && writes(r.info)) {
      write = r;
      [state, check] = checksAfterWrite(r.info) ? ['verified', r] : ['unchecked', null];
    } else if (write !== null && test) {
      [state, check] = [r.result.ok ? 'verified' : 'failed', r];
    } else if (write !== null && state === 'unchecked' && r.result.ok && !testFailed && checksAfterWrite(r.info)) {
      [state, check] = ['verified', r];
    }
  }
  return { state, write, check, testFailed };
}

const unverified = (results: readonly ResultStep[]): boolean => {
  const { state } = checkAfterLastWrite(results);
  return state === 'failed' || state === 'unchecked';
};

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
    if (unverified(results)) return 'unverified';
  }
  return changed ? 'verified' : 'nothing-changed';
}
