/**
 * announce-then-stop: the turn ends with the agent announcing its next
 * action ("I'll now run the tests:", "Let me search for the registry file.",
 * "接下来我核对一下。") without making the call. The cure is a "continue"
 * nudge (the supervisor sends at most two), hence severity info.
 *
 * English tail patterns and a trailing colon trigger on their own. Chinese
 * trigger words also open ordinary answers ("接下来我们看三种方案。"), so they
 * count only in a turn that already called a tool: a real stall happens in
 * the middle of work, a chat never calls tools. A reply longer than
 * `max_chars` is an answer, whatever its last sentence says.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { anyMatch, lastChar, lastSentence } from './text.js';
import { lastTextOf, turnsOf, type Turn } from './turns.js';
import type { AnnounceRules, ProbeContext, ProbeProfile, Verdict } from './types.js';

export const ANNOUNCE_THEN_STOP = 'announce-then-stop';

const COLONS = new Set([':', '：']);
const QUESTION = new Set(['?', '？']);

export function announceThenStop(events: readonly AgentEvent[], profile: ProbeProfile, _ctx?: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  for (const turn of turnsOf(events)) {
    const v = judgeTurn(turn, profile.rules.announce);
    if (v) out.push(v);
  }
  return out;
}

function judgeTurn(turn: Turn, rules: AnnounceRules): Verdict | null {
  if (!turn.end) return null;
  const text = turn.end.finalText.trim();
  if (text === '') return null;
  const final = lastTextOf(turn);
  const after = final ? turn.events.slice(final.index + 1) : [];
  if (after.some((e) => e.kind === 'tool-call')) return null;
  const calledTool = turn.events.some((e) => e.kind === 'tool-call');
  const why = announcement(text, calledTool, rules);
  if (why === null) return null;
  return {
    probe: ANNOUNCE_THEN_STOP,
    severity: 'info',
    message: `the turn ended announcing a next step without taking it (${why}): "${clip(lastSentence(text))}"`,
    evidence: final ? [final.id, turn.end.id] : [turn.end.id],
    turn: turn.id,
  };
}

/** Why the reply reads as an announcement, or null. */
export function announcement(text: string, calledTool: boolean, rules: AnnounceRules): string | null {
  const last = lastChar(text);
  if (rules.trailingColon && COLONS.has(last)) return 'ends with a colon';
  if (QUESTION.has(last) || text.length > rules.maxChars) return null;
  const sentence = lastSentence(text);
  if (anyMatch(rules.except, sentence)) return null;
  if (anyMatch(rules.english, sentence)) return 'announces an action';
  if (calledTool && anyMatch(rules.chinese, sentence)) return 'announces an action (中文)';
  return null;
}

function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}
