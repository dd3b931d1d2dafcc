/**
 * Claude Code: transcripts at <config>/projects/<key>/<session-id>.jsonl, where
 * <key> is the cwd with every non-alphanumeric character replaced by '-' and
 * <config> is CLAUDE_CONFIG_DIR or ~/.claude; one JSON record per line,
 * appended live (checked on 2.1.112).
 *
 * Records used: `assistant` (message.content[] of text / tool_use, message.usage,
 * message.stop_reason) and `user` (a prompt as a string or text parts, or
 * tool_result parts). One API message may be written as several records, one
 * per content block, sharing message.id and usage.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AgentEvent } from '../core/agent-events.js';
import { chooseCandidate, createdAt, cwdForms, homeOf, isAlive, isJobProcess, readHead, recentFiles, type Candidate } from './locate.js';
import { canonicalCall, errorHead, fingerprint, isRecord, parseRecord, textOf, timeOf } from './normalise.js';
import { flagValue, idMaker, type AgentAdapter, type AgentJob, type ParseResult } from './types.js';

export interface ClaudeState {
  readonly source: string;
  /** tool_use id → the tool-call event's id and the tool's name. */
  readonly calls: Map<string, { eventId: string; tool: string }>;
  /** message.id values whose usage was reported (every block repeats it). */
  readonly usageSeen: Set<string>;
  /** A turn has started (or the assistant acted) and has not ended yet. */
  inTurn: boolean;
  /** The message whose end_turn closed the last turn; its other blocks do not end it again. */
  endedMessage: string | undefined;
  /**
   * The text of the assistant's latest message that called no tool: the
   * turn's answer. Text beside a tool call ("I will run the command.") is
   * narration, and a turn that was interrupted has no answer.
   */
  lastText: string;
  t: number;
}

/** The user aborted the turn (Escape, a rejected tool); Claude Code writes this as a user text. */
const INTERRUPTED = /^\[Request interrupted by user/;
/** User texts that are not prompts: slash-command echoes and their local output. */
const NOT_A_PROMPT = /^<(?:command-name|command-message|local-command-stdout|local-command-stderr|bash-input|bash-stdout)>/;
const ENDS_TURN = new Set(['end_turn', 'stop_sequence']);
/** How long a new transcript may stay unannounced in <config>/sessions before we take it without. */
export const ANNOUNCE_WAIT_MS = 3000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newClaudeState(source: string): ClaudeState {
  return { source, calls: new Map(), usageSeen: new Set(), inTurn: false, endedMessage: undefined, lastText: '', t: 0 };
}

export function parseClaudeLine(line: string, lineNo: number, s: ClaudeState): ParseResult {
  if (line.trim() === '') return [];
  const parsed = parseRecord(line);
  if ('error' in parsed) return parsed;
  const r = parsed.record;
  s.t = timeOf(r.timestamp, s.t);
  const next = idMaker(s.source, lineNo);
  const sidechain = r.isSidechain === true;
  if (r.type === 'assistant' && isRecord(r.message)) return assistantEvents(r.message, sidechain, s, next);
  if (r.type === 'user' && isRecord(r.message)) return userEvents(r, r.message, sidechain, s, next);
  return [];
}

function assistantEvents(m: Record<string, unknown>, sidechain: boolean, s: ClaudeState, next: () => string): AgentEvent[] {
  const out: AgentEvent[] = [];
  const t = s.t;
  const msgId = typeof m.id === 'string' ? m.id : undefined;
  const usage = usageOf(m.usage);
  if (usage && !(msgId && s.usageSeen.has(msgId))) {
    if (msgId) s.usageSeen.add(msgId);
    out.push({ kind: 'usage', id: next(), t, ...usage });
  }
  const blocks = Array.isArray(m.content) ? m.content.filter(isRecord) : [];
  let calledTool = false;
  for (const b of blocks) {
    if (b.type === 'tool_use' && typeof b.name === 'string') {
      calledTool = true;
      // Blocks of one message come as separate records: a tool call after a text makes that text narration.
      if (!sidechain) s.lastText = '';
      const args = isRecord(b.input) ? b.input : {};
      const id = next();
      if (typeof b.id === 'string') s.calls.set(b.id, { eventId: id, tool: b.name });
      out.push({ kind: 'tool-call', id, t, tool: b.name, args, canonical: canonicalCall(b.name, args) });
    } else if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '' && !sidechain) {
      s.lastText = b.text;
      out.push({ kind: 'assistant-text', id: next(), t, text: b.text });
    }
  }
  if (sidechain) return out;
  const sameMessage = msgId !== undefined && msgId === s.endedMessage;
  if (!sameMessage) s.inTurn = true;
  if (!calledTool && !sameMessage && typeof m.stop_reason === 'string' && ENDS_TURN.has(m.stop_reason)) {
    out.push(endTurn(s, next));
    s.endedMessage = msgId;
  }
  return out;
}

function userEvents(r: Record<string, unknown>, m: Record<string, unknown>, sidechain: boolean, s: ClaudeState, next: () => string): AgentEvent[] {
  const out: AgentEvent[] = [];
  const parts = Array.isArray(m.content) ? m.content.filter(isRecord) : [];
  for (const b of parts) if (b.type === 'tool_result') out.push(toolResult(b, s, next));
  if (out.length > 0 || sidechain || r.isMeta === true || r.isCompactSummary === true) return out;
  const text = textOf(m.content).trim();
  if (text === '' || NOT_A_PROMPT.test(text)) return out;
  if (INTERRUPTED.test(text)) {
    s.lastText = '';
    if (s.inTurn) out.push(endTurn(s, next));
    return out;
  }
  // No end_turn seen (older releases, a crash): the last text before the next prompt was the answer.
  if (s.inTurn) out.push(endTurn(s, next));
  s.inTurn = true;
  s.lastText = '';
  s.endedMessage = undefined;
  out.push({ kind: 'turn-start', id: next(), t: s.t, text });
  return out;
}

function toolResult(b: Record<string, unknown>, s: ClaudeState, next: () => string): AgentEvent {
  const native = typeof b.tool_use_id === 'string' ? b.tool_use_id : '';
  const call = s.calls.get(native);
  const ok = b.is_error !== true;
  const output = textOf(b.content);
  return {
    kind: 'tool-result',
    id: next(),
    t: s.t,
    callId: call?.eventId ?? native,
    tool: call?.tool ?? 'unknown',
    ok,
    fingerprint: fingerprint(output),
    errorHead: ok ? null : errorHead(output),
  };
}

function endTurn(s: ClaudeState, next: () => string): AgentEvent {
  s.inTurn = false;
  return { kind: 'turn-end', id: next(), t: s.t, finalText: s.lastText };
}

/** All prompt tokens (uncached, cache writes, cache reads) and output tokens of one API call. */
export function usageOf(u: unknown): { inputTokens: number; outputTokens: number } | undefined {
  if (!isRecord(u)) return undefined;
  const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : 0);
  return {
    inputTokens: n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens'),
    outputTokens: n('output_tokens'),
  };
}

/** How Claude Code names a project's folder (2.1.112: /tmp/x/my_app.v2 → -tmp-x-my-app-v2). */
export function claudeProjectKey(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

function configDir(job: AgentJob): string {
  return job.env.CLAUDE_CONFIG_DIR || join(homeOf(job.env), '.claude');
}

/**
 * The job's transcript: `--session-id`/`--resume <uuid>` name it exactly; else
 * the session its process announces in <config>/sessions/<pid>.json; else the
 * shared rules in locate.ts over the project folder, without the sessions
 * other live processes announce. The transcript appears some 50 ms before the
 * announcement (2.1.112), so with a pid to go by, a young unannounced file is
 * given ANNOUNCE_WAIT_MS for its owner to speak up.
 */
export async function locateClaude(job: AgentJob): Promise<string | null> {
  const cwds = await cwdForms(job.cwd);
  const dirs = cwds.map((c) => join(configDir(job), 'projects', claudeProjectKey(c)));
  const forked = job.argv?.includes('--fork-session') ?? false;
  const named = flagValue(job.argv, '--session-id') ?? (forked ? undefined : flagValue(job.argv, '--resume', '-r'));
  if (named !== undefined && UUID.test(named)) return claim(job, await existing(dirs, named));
  const live = job.pid ? await liveSessions(job, job.pid) : undefined;
  if (live?.ours !== undefined) return claim(job, await existing(dirs, live.ours));
  const now = Date.now();
  const candidates = (await Promise.all(dirs.map((d) => listCandidates(d, job.startedAt)))).flat();
  const free = candidates.filter((c) => {
    if (live === undefined) return true;
    const session = basename(c.path, '.jsonl');
    return !live.others.has(session) && now - c.createdAt >= ANNOUNCE_WAIT_MS;
  });
  return claim(job, chooseCandidate(job, free, cwds, now));
}

function claim(job: AgentJob, path: string | null): string | null {
  if (path !== null) job.claimed.add(path);
  return path;
}

async function existing(dirs: string[], session: string): Promise<string | null> {
  for (const d of dirs) {
    const p = join(d, `${session}.jsonl`);
    if (await stat(p).then((st) => st.isFile(), () => false)) return p;
  }
  return null;
}

/**
 * Live sessions from <config>/sessions/<pid>.json (2.1.x writes one per
 * running process at start and removes it at exit): the one whose process is
 * the job's or below it, and the session ids of all others.
 */
async function liveSessions(job: AgentJob, jobPid: number): Promise<{ ours: string | undefined; others: Set<string> }> {
  const dir = join(configDir(job), 'sessions');
  let ours: string | undefined;
  const others = new Set<string>();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(/^(\d+)\.json$/.exec(name)?.[1]);
    // A crashed agent leaves its file behind; only running processes speak for a session.
    if (!pid || !isAlive(pid)) continue;
    // Read while being written: unannounced for now, the next look will see it.
    const v: unknown = await readFile(join(dir, name), 'utf8')
      .then((t) => JSON.parse(t) as unknown)
      .catch(() => undefined);
    if (!isRecord(v) || typeof v.sessionId !== 'string') continue;
    if (ours === undefined && (await isJobProcess(pid, jobPid))) ours = v.sessionId;
    else others.add(v.sessionId);
  }
  return { ours, others };
}

async function listCandidates(dir: string, since: number): Promise<Candidate[]> {
  // agent-*.jsonl are sub-agent (sidechain) transcripts of older releases, not sessions.
  const paths = await recentFiles(dir, (n) => n.endsWith('.jsonl') && !n.startsWith('agent-'), since);
  const out: Candidate[] = [];
  for (const path of paths) {
    const head = await readHead(path);
    const created = await createdAt(path, head);
    if (created === null) continue;
    const cwd = head.find((r) => typeof r.cwd === 'string')?.cwd as string | undefined;
    const firstPrompt = head.map(promptOf).find((p) => p !== undefined);
    out.push({ path, createdAt: created, ...(cwd !== undefined && { cwd }), ...(firstPrompt !== undefined && { firstPrompt }) });
  }
  return out;
}

function promptOf(r: Record<string, unknown>): string | undefined {
  if (r.type !== 'user' || r.isMeta === true || r.isSidechain === true || !isRecord(r.message)) return undefined;
  const c = r.message.content;
  if (Array.isArray(c) && c.some((b) => isRecord(b) && b.type === 'tool_result')) return undefined;
  const text = textOf(c).trim();
  return text === '' || NOT_A_PROMPT.test(text) || INTERRUPTED.test(text) ? undefined : text;
}

export const claudeAdapter: AgentAdapter<ClaudeState> = {
  kind: 'claude',
  locate: locateClaude,
  root: (job) => join(configDir(job), 'projects'),
  newState: newClaudeState,
  parse: parseClaudeLine,
};
