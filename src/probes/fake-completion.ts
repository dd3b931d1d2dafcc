/**
 * fake-completion: the turn's final reply claims the work is done ("fixed",
 * "committed", "已完成") but nothing in the turn changed anything: no
 * successful write or side-effect tool call (by the tool contract, never by
 * the reply, which is the thing being judged) and the caller saw no change
 * in `git status --porcelain`. Unknown git state is no evidence of writes.
 * Highest priority: the claim is refused and a person alerted.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { writes } from './roles.js';
import { resultsOf } from './steps.js';
import { anyMatch, sentencesOf } from './text.js';
import { gitChangedFor, lastTextOf, turnsOf, type Turn } from './turns.js';
import type { ClaimRules, ProbeContext, ProbeProfile, Verdict } from './types.js';

export const FAKE_COMPLETION = 'fake-completion';

export function fakeCompletion(events: readonly AgentEvent[], profile: ProbeProfile, ctx: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  const turns = turnsOf(events);
  for (const turn of turns) {
    if (!turn.end) continue;
    const claim = claimOf(turn.end.finalText, profile.rules.claims);
    if (claim === null) continue;
    const git = gitChangedFor(turn, turns, ctx);
    if (changedSomething(turn, profile) || git === true) continue;
    const final = lastTextOf(turn);
    out.push({
      probe: FAKE_COMPLETION,
      severity: 'critical',
      // Only a git status that ran may be quoted: outside a repository there is no git fact to claim.
      message: `the reply claims completion ("${claim}") but the turn made no successful write${git === false ? ' and git saw no change' : ' (no git status to check)'}`,
      evidence: final ? [final.id, turn.end.id] : [turn.end.id],
      turn: turn.id,
    });
  }
  return out;
}

/** The first sentence that claims completion and does not negate it. */
export function claimOf(text: string, rules: ClaimRules): string | null {
  for (const s of sentencesOf(text)) {
    if (anyMatch(rules.patterns, s) && !anyMatch(rules.negations, s)) return s.length > 120 ? `${s.slice(0, 119)}…` : s;
  }
  return null;
}

function changedSomething(turn: Turn, profile: ProbeProfile): boolean {
  return resultsOf(turn, profile.rules).some((r) => r.result.ok && (writes(r.info) || r.info.sideEffect));
}
