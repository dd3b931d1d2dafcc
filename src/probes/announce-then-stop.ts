/**
 * announce-then-stop: the turn ends with the agent announcing its next
 * action ("I'll now run the tests:", "Let me search for the registry file.",
 * "接下来我核对一下。") without making the call. The cure is a "continue"
 * nudge (the supervisor sends at most two), hence severity info.
 *
 * Every sentence of the closing paragraph is read, not only the last: "Let
 * me run it once more with the debug flag. The mismatch seems to come from
 * the rounding." stops as surely. English patterns and a trailing colon
 * trigger on their own. Chinese trigger words and softer English ("we should
 * review the changes", "if everything looks good, we can submit") also open
 * ordinary answers ("接下来我们看三种方案。"), so they count only in a turn
 * that already called a tool: a real stall happens in the middle of work, a
 * chat never calls tools. Courtesy and offers to the user ("let me know",
 * "if you want, I can…") are no announcement. A reply longer than `max_chars`
 * is an answer, whatever its closing paragraph says.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { anyMatch, lastChar, sentencesOf } from './text.js';
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
  const found = announcement(text, calledTool, rules);
  if (found === null) return null;
  return {
    probe: ANNOUNCE_THEN_STOP,
    severity: 'info',
    message: `the turn ended announcing a next step without taking it (${found.why}): "${clip(found.sentence)}"`,
    evidence: final ? [final.id, turn.end.id] : [turn.end.id],
    turn: turn.id,
  };
}

export interface Announcement {
  readonly why: string;
  readonly sentence: string;
}

/** The sentence that announces, and why it reads as one; null for an answer. */
export function announcement(text: string, calledTool: boolean, rules: AnnounceRules): Announcement | null {
  const last = lastChar(text);
  const sentences = sentencesOf(closingParagraph(text));
  if (rules.trailingColon && COLONS.has(last)) return { why: 'ends with a colon', sentence: sentences[sentences.length - 1] ?? '' };
  if (QUESTION.has(last) || text.length > rules.maxChars) return null;
  for (const sentence of sentences) {
    if (anyMatch(rules.except, sentence)) continue;
    if (anyMatch(rules.english, sentence)) return { why: 'announces an action', sentence };
    if (!calledTool) continue;
    if (anyMatch(rules.afterTools, sentence)) return { why: 'announces an action in the middle of work', sentence };
    if (anyMatch(rules.chinese, sentence)) return { why: 'announces an action (中文)', sentence };
  }
  return null;
}

/** The text after the last blank line. */
function closingParagraph(text: string): string {
  const parts = text.trim().split(/\n[ \t]*\n/);
  return parts[parts.length - 1]!;
}

function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}
