/**
 * Claude Code's `--output-format stream-json` (with `--verbose`), as `claude -p`
 * prints it (checked on 2.1.112): a `system` record (subtype `init`: cwd,
 * session_id, tools), the same `assistant` and `user` records as the session
 * transcript (claude.ts), and a `result` record when the run ends (`result`:
 * the answer, `usage`: the run's tokens).
 *
 * Two differences from the session file: the prompt is not in the stream
 * (the `init` record opens the turn) and each assistant record carries its
 * message as streaming began (`stop_reason` null, one output token), so the
 * `result` record ends the turn and brings the tokens the records missed.
 * Not followed live: stored streams are re-judged (`nightshift judge`).
 */
import type { AgentEvent } from '../core/agent-events.js';
import { newClaudeState, parseClaudeLine, usageOf, type ClaudeState } from './claude.js';
import { isRecord, parseRecord } from './normalise.js';
import { idMaker, type ParseResult } from './types.js';

export interface ClaudeStreamState extends ClaudeState {
  /** Tokens of the usage events since the last `result`: that record's usage covers the same messages. */
  counted: number;
}

export function newClaudeStreamState(source: string): ClaudeStreamState {
  return { ...newClaudeState(source), counted: 0 };
}

export function parseClaudeStreamLine(line: string, lineNo: number, s: ClaudeStreamState): ParseResult {
  if (line.trim() === '') return [];
  const parsed = parseRecord(line);
  if ('error' in parsed) return parsed;
  const r = parsed.record;
  const next = idMaker(s.source, lineNo);
  if (r.type === 'system' && r.subtype === 'init') return s.inTurn ? [] : [startTurn(s, next)];
  if (r.type === 'result') return endRun(r, s, next);
  const out = parseClaudeLine(line, lineNo, s);
  if (Array.isArray(out)) for (const e of out) if (e.kind === 'usage') s.counted += e.inputTokens + e.outputTokens;
  return out;
}

function startTurn(s: ClaudeStreamState, next: () => string): AgentEvent {
  s.inTurn = true;
  s.lastText = '';
  s.endedMessage = undefined;
  // The prompt was an argument of `claude -p`, not a record of the stream.
  return { kind: 'turn-start', id: next(), t: s.t, text: '' };
}

function endRun(r: Record<string, unknown>, s: ClaudeStreamState, next: () => string): AgentEvent[] {
  const out: AgentEvent[] = [];
  const total = usageOf(r.usage);
  const missing = total ? total.inputTokens + total.outputTokens - s.counted : 0;
  // Output tokens are what the streamed records under-report (one per message).
  if (total && missing > 0) out.push({ kind: 'usage', id: next(), t: s.t, inputTokens: 0, outputTokens: missing });
  s.counted = 0;
  if (s.inTurn) {
    s.inTurn = false;
    const finalText = typeof r.result === 'string' && r.is_error !== true ? r.result : s.lastText;
    out.push({ kind: 'turn-end', id: next(), t: s.t, finalText });
  }
  return out;
}

/** Whether a record is of a stream-json run: snake_case `session_id` on its records. */
export function isClaudeStreamRecord(r: Record<string, unknown>): boolean {
  return typeof r.session_id === 'string' && ['system', 'assistant', 'user', 'result'].includes(String(r.type)) && (r.type !== 'user' || isRecord(r.message));
}
