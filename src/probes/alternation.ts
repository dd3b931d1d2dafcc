/**
 * alternation: A, B, A, B, … — the same two canonical calls taking turns,
 * e.g. an edit and its undo, or a rewrite and a test run of the same
 * content. OpenHands flags this over 6 steps. Unlike repeated-action the
 * outcome is not part of the key: a flip-flop edit's output differs from
 * round to round (line numbers, snippets) while the agent goes nowhere.
 * Pollers are skipped, not counted as a break.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { labelOf, stepsOf } from './steps.js';
import { turnsOf } from './turns.js';
import type { ProbeContext, ProbeProfile, ToolCallEvent, Verdict } from './types.js';

export const ALTERNATION = 'alternation';

export function alternation(events: readonly AgentEvent[], profile: ProbeProfile, _ctx?: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  for (const turn of turnsOf(events)) {
    const calls = stepsOf(turn, profile.rules).filter((s) => s.info.role !== 'poll').map((s) => s.call);
    for (const run of alternatingRuns(calls)) {
      if (run.length < profile.alternation) continue;
      const [a, b] = run;
      out.push({
        probe: ALTERNATION,
        severity: run.length >= 2 * profile.alternation ? 'critical' : 'warn',
        message: `${run.length} tool calls alternating between two calls: ${labelOf(a!, a!.tool)} / ${labelOf(b!, b!.tool)}`,
        evidence: run.map((c) => c.id),
        turn: turn.id,
      });
    }
  }
  return out;
}

/** Maximal runs where each step differs from the one before and equals the one two before. */
function alternatingRuns(calls: readonly ToolCallEvent[]): ToolCallEvent[][] {
  const runs: ToolCallEvent[][] = [];
  const key = (i: number) => calls[i]!.canonical;
  let start = 0;
  for (let i = 1; i <= calls.length; i++) {
    const more = i < calls.length;
    if (more && key(i) !== key(i - 1) && (i - start < 2 || key(i) === key(i - 2))) continue;
    if (i - start >= 3) runs.push(calls.slice(start, i));
    // A break at i: the pair (i-1, i) may open the next run, unless the two are equal.
    start = more && key(i) !== key(i - 1) ? i - 1 : i;
  }
  return runs;
}
