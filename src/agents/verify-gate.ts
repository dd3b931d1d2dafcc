/**
 * Verify before accepting: a turn that claims done after the job changed
 * files, with no successful test or check since the last change, is not
 * accepted at once. The agent is reminded to run the project's own check
 * (a few times at most); a claim still unchecked after that ends the job
 * `unverified`. Only a successful check counts: a test that failed after
 * the last change is no check, and neither is a read (the project names a
 * check, so reading the change back does not test it). Pure.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { claimOf } from '../probes/fake-completion.js';
import { checkAfterLastWrite } from '../probes/unverified-change.js';
import { labelOf, resultsOf, type ResultStep } from '../probes/steps.js';
import { turnsOf } from '../probes/turns.js';
import type { ProbeRules, TurnEndEvent, Verdict } from '../probes/types.js';

export const VERIFY_GATE = 'unverified-claim';

export type GateDecision =
  | { readonly kind: 'remind'; readonly verdict: Verdict; readonly text: string }
  | { readonly kind: 'unverified'; readonly verdict: Verdict };

export interface GateInput {
  /** The job's events so far, the turn's end last. */
  readonly events: readonly AgentEvent[];
  readonly rules: ProbeRules;
  /** The project's own check (`npm test`); null: the project names none, and nothing is asked. */
  readonly check: string | null;
  readonly reminded: number;
  readonly maxReminders: number;
}

/** What the turn that just ended gets: a reminder, the unverified mark, or nothing (accepted). */
export function verifyGate(g: GateInput): GateDecision | null {
  const end = g.events.at(-1);
  if (end?.kind !== 'turn-end' || g.check === null || g.maxReminders === 0) return null;
  const claim = claimOf(end.finalText, g.rules.claims);
  if (claim === null) return null;
  const turns = turnsOf(g.events);
  const write = uncheckedWrite(turns.flatMap((t) => resultsOf(t, g.rules)));
  if (write === null) return null;
  const verdict = gateVerdict(claim, write, end, turns.at(-1)?.id ?? null, g.check);
  if (g.reminded >= g.maxReminders) return { kind: 'unverified', verdict };
  return { kind: 'remind', verdict, text: reminderText(g.check, g.reminded + 1, g.maxReminders) };
}

/**
 * The job's last successful write if no successful test came after it (a line that writes then
 * tests checks itself). Stricter than the probes' verification (checkAfterLastWrite), where a read
 * may check a write: in a project that names its check, only a test is one.
 */
export function uncheckedWrite(results: readonly ResultStep[]): ResultStep | null {
  const c = checkAfterLastWrite(results);
  if (c.write === null) return null;
  const tested = c.state === 'verified' && c.check !== null && c.check.info.steps.includes('test');
  return tested ? null : c.write;
}

function gateVerdict(claim: string, write: ResultStep, end: TurnEndEvent, turn: string | null, check: string): Verdict {
  return {
    probe: VERIFY_GATE,
    severity: 'warn',
    message: `the reply claims done ("${claim}") after changing files (${labelOf(write.call, write.result.tool)}) with no successful test or check since the last change; the project's check is \`${check}\``,
    evidence: [write.call?.id, write.result.id, end.id].filter((id): id is string => id !== undefined),
    turn,
  };
}

/** One line, so it is typed as one message. */
export function reminderText(check: string, n: number, of: number): string {
  return `nightshift: you changed files and no test or check has passed since the last change. Run \`${check}\` and make sure it passes before you say the work is done (reminder ${n} of ${of}).`;
}
