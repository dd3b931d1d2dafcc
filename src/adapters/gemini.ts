/**
 * Gemini CLI: chats at <home>/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl
 * (<home> is GEMINI_CLI_HOME or HOME; <project> is the short id that
 * ~/.gemini/projects.json maps the project path to, a folder whose
 * `.project_root` names the path, or — older releases — sha256 of the path).
 *
 * Lines: a metadata record `{sessionId, projectHash, startTime, …}`, message
 * records `{id, timestamp, type: user|gemini|info|error|warning, content,
 * toolCalls?, tokens?}`, and `{$set: …}` / `{$rewindTo: id}` updates. A
 * message is appended again, whole, each time it changes (tokens arrive,
 * tool calls are added), so we report each part of a message once.
 *
 * Limits of the format: tool calls are recorded when they finish, so a call's
 * start and result arrive together, and a call waiting for permission is not
 * in the file yet; there is no end-of-turn marker, so a turn ends (with the
 * last text as its answer) when the next prompt arrives, or when the log is
 * over (finishGemini). Written from the
 * public source of gemini-cli, not yet checked against a live run here.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AgentEvent } from '../core/agent-events.js';
import { chooseCandidate, createdAt, cwdForms, homeOf, readHead, recentFiles, type Candidate } from './locate.js';
import { canonicalCall, errorHead, fingerprint, isRecord, parseRecord, textOf, timeOf } from './normalise.js';
import { idMaker, type AgentAdapter, type AgentJob, type ParseResult } from './types.js';

export interface GeminiState {
  readonly source: string;
  /** toolCalls[].id → the tool-call event's id, the tool, whether its result was reported. */
  readonly calls: Map<string, { eventId: string; tool: string; done: boolean }>;
  /** Message ids already seen, with the text reported for them. */
  readonly messages: Map<string, { text: string; usage: boolean }>;
  inTurn: boolean;
  lastText: string;
  t: number;
}

const FINISHED = new Set(['success', 'error', 'cancelled']);

export function newGeminiState(source: string): GeminiState {
  return { source, calls: new Map(), messages: new Map(), inTurn: false, lastText: '', t: 0 };
}

export function parseGeminiLine(line: string, lineNo: number, s: GeminiState): ParseResult {
  if (line.trim() === '') return [];
  const parsed = parseRecord(line);
  if ('error' in parsed) return parsed;
  const r = parsed.record;
  // Metadata, $set and $rewindTo records carry no id of a message.
  if (typeof r.id !== 'string') return [];
  s.t = timeOf(r.timestamp, s.t);
  const next = idMaker(s.source, lineNo);
  if (r.type === 'user') return userMessage(r, r.id, s, next);
  if (r.type === 'gemini') return geminiMessage(r, r.id, s, next);
  return [];
}

/** No end-of-turn marker: once the log is over (the process gone), its last turn has ended with its last text. */
export function finishGemini(s: GeminiState): AgentEvent[] {
  if (!s.inTurn) return [];
  s.inTurn = false;
  return [{ kind: 'turn-end', id: `${s.source}:end`, t: s.t, finalText: s.lastText }];
}

function userMessage(r: Record<string, unknown>, id: string, s: GeminiState, next: () => string): AgentEvent[] {
  if (s.messages.has(id)) return [];
  s.messages.set(id, { text: '', usage: false });
  const text = textOf(r.content).trim();
  if (text === '') return [];
  const out: AgentEvent[] = [];
  if (s.inTurn) out.push({ kind: 'turn-end', id: next(), t: s.t, finalText: s.lastText });
  s.inTurn = true;
  s.lastText = '';
  out.push({ kind: 'turn-start', id: next(), t: s.t, text });
  return out;
}

function geminiMessage(r: Record<string, unknown>, id: string, s: GeminiState, next: () => string): AgentEvent[] {
  const out: AgentEvent[] = [];
  const seen = s.messages.get(id) ?? { text: '', usage: false };
  s.messages.set(id, seen);
  s.inTurn = true;
  if (!seen.usage && isRecord(r.tokens)) {
    seen.usage = true;
    const n = (k: string) => Number((r.tokens as Record<string, unknown>)[k]) || 0;
    // Thinking tokens are output the model produced, as Claude and Codex count them.
    out.push({ kind: 'usage', id: next(), t: s.t, inputTokens: n('input'), outputTokens: n('output') + n('thoughts') });
  }
  const text = textOf(r.content).trim();
  if (text !== '' && text !== seen.text) {
    seen.text = text;
    s.lastText = text;
    out.push({ kind: 'assistant-text', id: next(), t: s.t, text });
  }
  for (const tc of Array.isArray(r.toolCalls) ? r.toolCalls.filter(isRecord) : []) out.push(...toolCall(tc, s, next));
  return out;
}

function toolCall(tc: Record<string, unknown>, s: GeminiState, next: () => string): AgentEvent[] {
  if (typeof tc.id !== 'string') return [];
  const out: AgentEvent[] = [];
  // The call's own timestamp is closer to when it ran than its message's.
  const t = timeOf(tc.timestamp, s.t);
  let call = s.calls.get(tc.id);
  if (!call) {
    const tool = typeof tc.name === 'string' ? tc.name : 'unknown';
    const args = isRecord(tc.args) ? tc.args : {};
    call = { eventId: next(), tool, done: false };
    s.calls.set(tc.id, call);
    out.push({ kind: 'tool-call', id: call.eventId, t, tool, args, canonical: canonicalCall(tool, args) });
  }
  if (!call.done && typeof tc.status === 'string' && FINISHED.has(tc.status)) {
    call.done = true;
    const { body, exitCode } = shellParts(resultText(tc));
    // A shell command that ran but exited non-zero is 'success' to Gemini; Claude and Codex call it an error.
    const ok = tc.status === 'success' && (exitCode === undefined || exitCode === 0);
    const head = exitCode ? `Exit code ${exitCode}\n${body}` : body;
    out.push({ kind: 'tool-result', id: next(), t, callId: call.eventId, tool: call.tool, ok, fingerprint: fingerprint(head), errorHead: ok ? null : errorHead(head) });
  }
  return out;
}

/** The tool's output: functionResponse.response {output | error | …} parts, else resultDisplay. */
function resultText(tc: Record<string, unknown>): string {
  const parts = Array.isArray(tc.result) ? tc.result : tc.result === undefined || tc.result === null ? [] : [tc.result];
  const texts: string[] = [];
  for (const p of parts) {
    if (!isRecord(p)) continue;
    const fr = isRecord(p.functionResponse) ? p.functionResponse : undefined;
    const resp = fr && isRecord(fr.response) ? fr.response : undefined;
    if (resp) texts.push(typeof resp.output === 'string' ? resp.output : typeof resp.error === 'string' ? resp.error : JSON.stringify(resp));
    else if (typeof p.text === 'string') texts.push(p.text);
  }
  if (texts.length > 0) return texts.join('\n');
  return typeof tc.resultDisplay === 'string' ? tc.resultDisplay : '';
}

/**
 * run_shell_command reports `Command: …\nDirectory: …\nOutput: …\nError: …\nExit Code: N\n…`
 * (with pids that change every run): keep the output, error and exit code. 0.61 drops the
 * Command line and wraps the rest in <untrusted_context>: an Output section marks it as well.
 */
const NEXT_SECTION = '^(?:Command|Directory|Output|Error|Exit Code|Signal|Background PIDs|Process Group PGID): ';

export function shellParts(output: string): { body: string; exitCode?: number } {
  const exit = /^Exit Code: (-?\d+)/m.exec(output);
  if (!exit || !/^(?:Command|Output): /m.test(output)) return { body: output };
  const section = (name: string) => new RegExp(`^${name}: ([\\s\\S]*?)(?=${NEXT_SECTION}|(?![\\s\\S]))`, 'm').exec(output)?.[1]?.trim() ?? '';
  const parts = [section('Output'), section('Error')].filter((p) => p !== '' && p !== '(empty)' && p !== '(none)');
  return { body: parts.join('\n'), exitCode: Number(exit[1]) };
}

function geminiDir(job: AgentJob): string {
  return join(job.env.GEMINI_CLI_HOME || homeOf(job.env), '.gemini');
}

/** Folders under <gemini>/tmp that may hold this project's chats. */
async function projectDirs(job: AgentJob, cwds: readonly string[]): Promise<string[]> {
  const base = geminiDir(job);
  const tmp = join(base, 'tmp');
  const ids = new Set<string>(cwds.map((c) => createHash('sha256').update(c).digest('hex')));
  const registry: unknown = await readFile(join(base, 'projects.json'), 'utf8')
    .then((t) => JSON.parse(t) as unknown)
    .catch(() => undefined);
  const projects = isRecord(registry) && isRecord(registry.projects) ? registry.projects : {};
  for (const c of cwds) if (typeof projects[c] === 'string') ids.add(projects[c] as string);
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    const owner = await readFile(join(tmp, name, '.project_root'), 'utf8').catch(() => undefined);
    if (owner !== undefined && cwds.includes(resolve(owner.trim()))) ids.add(name);
  }
  return [...ids].map((id) => join(tmp, id, 'chats'));
}

/** An unclaimed session file of the project created after the job started (rules in locate.ts). */
export async function locateGemini(job: AgentJob): Promise<string | null> {
  const cwds = await cwdForms(job.cwd);
  const dirs = await projectDirs(job, cwds);
  const candidates = (await Promise.all(dirs.map((d) => listCandidates(d, job.startedAt)))).flat();
  const path = chooseCandidate(job, candidates, cwds, Date.now());
  if (path !== null) job.claimed.add(path);
  return path;
}

async function listCandidates(dir: string, since: number): Promise<Candidate[]> {
  // Sub-agent chats live in sub-folders; legacy whole-file .json sessions are not followed.
  const paths = await recentFiles(dir, (n) => n.startsWith('session-') && n.endsWith('.jsonl'), since);
  const out: Candidate[] = [];
  for (const path of paths) {
    const head = await readHead(path);
    const created = await createdAt(path, head.map((r) => ({ timestamp: r.startTime ?? r.timestamp })));
    if (created === null) continue;
    const firstUser = head.find((r) => r.type === 'user' && typeof r.id === 'string');
    const firstPrompt = firstUser ? textOf(firstUser.content).trim() || undefined : undefined;
    out.push({ path, createdAt: created, ...(firstPrompt !== undefined && { firstPrompt }) });
  }
  return out;
}

export const geminiAdapter: AgentAdapter<GeminiState> = {
  kind: 'gemini',
  locate: locateGemini,
  root: (job) => join(geminiDir(job), 'tmp'),
  newState: newGeminiState,
  parse: parseGeminiLine,
  finish: finishGemini,
};
