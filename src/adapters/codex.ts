/**
 * Codex CLI: rollouts at $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl
 * (CODEX_HOME defaults to ~/.codex), lines `{timestamp, type, payload}`:
 *
 *   session_meta   payload {id, cwd, timestamp, cli_version, …}: first line
 *   response_item  payload.type message (role assistant: output_text parts),
 *                  function_call {name, arguments (JSON text), call_id},
 *                  function_call_output {call_id, output}, custom_tool_call{,_output},
 *                  local_shell_call {call_id, action}
 *   event_msg      payload.type user_message {message}: a prompt;
 *                  task_complete {last_agent_message} / turn_aborted: end of turn;
 *                  token_count {info.total_token_usage, info.last_token_usage}
 *
 * User response_items (which also carry AGENTS.md and environment context)
 * and agent_message events (copies of assistant items) are ignored, so each
 * prompt and reply is counted once. Written from public descriptions of the
 * format, not yet checked against a live Codex run here.
 */
import { join } from 'node:path';
import type { AgentEvent } from '../core/agent-events.js';
import { chooseCandidate, createdAt, cwdForms, homeOf, readHead, recentFiles, type Candidate } from './locate.js';
import { canonicalCall, errorHead, fingerprint, isRecord, parseRecord, textOf, timeOf } from './normalise.js';
import { idMaker, type AgentAdapter, type AgentJob, type ParseResult } from './types.js';

export interface CodexState {
  readonly source: string;
  readonly calls: Map<string, { eventId: string; tool: string }>;
  inTurn: boolean;
  lastText: string;
  /** Running token totals already reported; token_count repeats totals, so we report differences. */
  total: { input: number; output: number };
  t: number;
}

export function newCodexState(source: string): CodexState {
  return { source, calls: new Map(), inTurn: false, lastText: '', total: { input: 0, output: 0 }, t: 0 };
}

export function parseCodexLine(line: string, lineNo: number, s: CodexState): ParseResult {
  if (line.trim() === '') return [];
  const parsed = parseRecord(line);
  if ('error' in parsed) return parsed;
  const r = parsed.record;
  s.t = timeOf(r.timestamp, s.t);
  const p = r.payload;
  if (!isRecord(p)) return [];
  const next = idMaker(s.source, lineNo);
  if (r.type === 'response_item') return responseItem(p, s, next);
  if (r.type === 'event_msg') return eventMsg(p, s, next);
  return [];
}

function responseItem(p: Record<string, unknown>, s: CodexState, next: () => string): AgentEvent[] {
  switch (p.type) {
    case 'message': {
      const text = p.role === 'assistant' ? textOf(p.content).trim() : '';
      if (text === '') return [];
      s.inTurn = true;
      s.lastText = text;
      return [{ kind: 'assistant-text', id: next(), t: s.t, text }];
    }
    case 'function_call':
      return [toolCall(p, String(p.name ?? 'unknown'), jsonArgs(p.arguments), s, next)];
    case 'custom_tool_call':
      return [toolCall(p, String(p.name ?? 'unknown'), { input: p.input ?? '' }, s, next)];
    case 'local_shell_call':
      return [toolCall(p, 'local_shell', isRecord(p.action) ? p.action : {}, s, next)];
    case 'function_call_output':
    case 'custom_tool_call_output':
      return [toolResult(p, s, next)];
    default:
      return [];
  }
}

/**
 * A prompt's text: `user_message {message}` (older releases) or, from 0.171,
 * `item_completed {item: {type: UserMessage, content: [{type: text, text}]}}`.
 */
export function promptText(p: Record<string, unknown>): string | undefined {
  if (p.type === 'user_message' && typeof p.message === 'string') return p.message;
  const item = p.type === 'item_completed' && isRecord(p.item) ? p.item : undefined;
  if (!item || item.type !== 'UserMessage' || !Array.isArray(item.content)) return undefined;
  const parts = item.content.flatMap((c: unknown) => (isRecord(c) && c.type === 'text' && typeof c.text === 'string' ? [c.text] : []));
  return parts.length ? parts.join('\n') : undefined;
}

function eventMsg(p: Record<string, unknown>, s: CodexState, next: () => string): AgentEvent[] {
  const out: AgentEvent[] = [];
  switch (p.type) {
    case 'item_completed':
    case 'user_message': {
      const text = (promptText(p) ?? '').trim();
      if (text === '') return out;
      if (s.inTurn) out.push(endTurn(s, s.lastText, next));
      s.inTurn = true;
      s.lastText = '';
      out.push({ kind: 'turn-start', id: next(), t: s.t, text });
      return out;
    }
    case 'task_complete':
    case 'turn_complete': {
      // A turn closes once; a repeated completion (or one for a turn we never saw) adds nothing.
      const final = typeof p.last_agent_message === 'string' ? p.last_agent_message : s.lastText;
      if (s.inTurn) out.push(endTurn(s, final, next));
      return out;
    }
    case 'turn_aborted':
      if (s.inTurn) out.push(endTurn(s, s.lastText, next));
      return out;
    case 'token_count':
      return usage(p.info, s, next);
    default:
      return out;
  }
}

function toolCall(p: Record<string, unknown>, tool: string, args: Record<string, unknown>, s: CodexState, next: () => string): AgentEvent {
  const id = next();
  const native = typeof p.call_id === 'string' ? p.call_id : typeof p.id === 'string' ? p.id : undefined;
  if (native !== undefined) s.calls.set(native, { eventId: id, tool });
  s.inTurn = true;
  return { kind: 'tool-call', id, t: s.t, tool, args, canonical: canonicalCall(tool, args) };
}

function toolResult(p: Record<string, unknown>, s: CodexState, next: () => string): AgentEvent {
  const native = typeof p.call_id === 'string' ? p.call_id : '';
  const call = s.calls.get(native);
  const { body, ok, exitCode } = codexOutput(p.output);
  const head = exitCode !== undefined && exitCode !== 0 ? `Exit code ${exitCode}\n${body}` : body;
  return {
    kind: 'tool-result',
    id: next(),
    t: s.t,
    callId: call?.eventId ?? native,
    tool: call?.tool ?? 'unknown',
    ok,
    fingerprint: fingerprint(body),
    errorHead: ok ? null : errorHead(head),
  };
}

const REJECTED = /\b(?:rejected by (?:the )?user|declined by (?:the )?user|aborted by (?:the )?user|sandbox denied|execution error)/i;
/** Header lines of unified-exec output that change on every run. */
const EXEC_HEADER = /^(?:Chunk ID|Wall time|Original token count|Process exited with code|Process running with session ID)\b.*$/gm;

/**
 * What a tool returned and whether it worked. Older releases wrap shell output
 * as JSON `{output, metadata: {exit_code}}`; newer ones write text with
 * `Process exited with code N` and an `Output:` section; some write
 * `{content, success}`.
 */
export function codexOutput(output: unknown): { body: string; ok: boolean; exitCode?: number } {
  if (isRecord(output)) {
    const body = typeof output.content === 'string' ? output.content : textOf(output.content);
    return { body, ok: output.success !== false && !REJECTED.test(body) };
  }
  const text = typeof output === 'string' ? output : textOf(output);
  const wrapped = jsonArgs(text);
  if (typeof wrapped.output === 'string') {
    const meta = isRecord(wrapped.metadata) ? wrapped.metadata : {};
    const exitCode = typeof meta.exit_code === 'number' ? meta.exit_code : undefined;
    return { body: wrapped.output, ok: exitCode === undefined ? !REJECTED.test(wrapped.output) : exitCode === 0, exitCode };
  }
  const exit = /Process exited with code (-?\d+)|^Exit code:? (-?\d+)/m.exec(text);
  const exitCode = exit ? Number(exit[1] ?? exit[2]) : undefined;
  const at = text.search(/^Output:\r?\n/m);
  const body = at >= 0 ? text.slice(at).replace(/^Output:\r?\n/, '') : text.replace(EXEC_HEADER, '').trim();
  return { body, ok: exitCode === undefined ? !REJECTED.test(text) : exitCode === 0, exitCode };
}

function usage(info: unknown, s: CodexState, next: () => string): AgentEvent[] {
  if (!isRecord(info)) return [];
  const tokens = (u: unknown) =>
    isRecord(u) ? { input: Number(u.input_tokens) || 0, output: Number(u.output_tokens) || 0 } : undefined;
  const total = tokens(info.total_token_usage);
  let d = tokens(info.last_token_usage);
  if (total) {
    d = { input: total.input - s.total.input, output: total.output - s.total.output };
    s.total = total;
  }
  if (!d || d.input + d.output <= 0) return [];
  return [{ kind: 'usage', id: next(), t: s.t, inputTokens: d.input, outputTokens: d.output }];
}

function endTurn(s: CodexState, finalText: string, next: () => string): AgentEvent {
  s.inTurn = false;
  return { kind: 'turn-end', id: next(), t: s.t, finalText };
}

function jsonArgs(v: unknown): Record<string, unknown> {
  if (isRecord(v)) return v;
  if (typeof v !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(v);
    return isRecord(parsed) ? parsed : { value: parsed };
  } catch {
    return { raw: v };
  }
}

function codexHome(job: AgentJob): string {
  return job.env.CODEX_HOME || join(homeOf(job.env), '.codex');
}

/** YYYY/MM/DD folders from a day before the job started to a day after now (local or UTC naming). */
function dayDirs(root: string, from: number, to: number): string[] {
  const out = new Set<string>();
  const day = 86_400_000;
  for (let t = from - day; t <= to + day; t += day / 2) {
    const d = new Date(t);
    out.add(join(root, String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate())));
  }
  return [...out];
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The rollout whose session_meta cwd is the job's, created after it started and unclaimed (rules in locate.ts). */
export async function locateCodex(job: AgentJob): Promise<string | null> {
  const cwds = await cwdForms(job.cwd);
  const now = Date.now();
  const dirs = dayDirs(join(codexHome(job), 'sessions'), job.startedAt, now);
  const candidates = (await Promise.all(dirs.map((d) => listCandidates(d, job.startedAt)))).flat();
  const path = chooseCandidate(job, candidates, cwds, now);
  if (path !== null) job.claimed.add(path);
  return path;
}

async function listCandidates(dir: string, since: number): Promise<Candidate[]> {
  const paths = await recentFiles(dir, (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), since);
  const out: Candidate[] = [];
  for (const path of paths) {
    const head = await readHead(path);
    const meta = head.find((r) => r.type === 'session_meta')?.payload;
    // A rollout without its meta line yet cannot be matched to a cwd; look again later.
    if (!isRecord(meta) || typeof meta.cwd !== 'string') continue;
    const created = await createdAt(path, head);
    if (created === null) continue;
    const prompt = head.map((r) => (r.type === 'event_msg' && isRecord(r.payload) ? promptText(r.payload) : undefined));
    const firstPrompt = prompt.find((m): m is string => typeof m === 'string');
    out.push({ path, createdAt: created, cwd: meta.cwd, ...(firstPrompt !== undefined && { firstPrompt }) });
  }
  return out;
}

export const codexAdapter: AgentAdapter<CodexState> = {
  kind: 'codex',
  locate: locateCodex,
  root: (job) => join(codexHome(job), 'sessions'),
  newState: newCodexState,
  parse: parseCodexLine,
};
