/**
 * Stored transcripts read whole, for re-judging (`nightshift judge`): which
 * format a file is in (from its content, or as told), its events through the
 * same parser a live job follows it with, and the files a folder holds.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AgentEvent, AgentKind, StoredTranscript } from '../core/agent-events.js';
import { InputError } from '../util/errors.js';
import { isClaudeStreamRecord, newClaudeStreamState, parseClaudeStreamLine } from './claude-stream.js';
import { EVENT_KINDS, parseAgentEventLine } from './event-lines.js';
import { adapterFor } from './index.js';
import { isRecord, parseRecord } from './normalise.js';
import type { ParseResult } from './types.js';

export const TRANSCRIPT_FORMATS = ['claude', 'claude-stream', 'codex', 'gemini', 'generic', 'events'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

interface FormatParser {
  readonly agent: AgentKind;
  newState(source: string): unknown;
  parse(line: string, lineNo: number, state: unknown): ParseResult;
  finish?(state: unknown): AgentEvent[];
}

const viaAdapter = (agent: AgentKind): FormatParser => {
  const a = adapterFor(agent);
  return { agent, newState: (s) => a.newState(s), parse: (l, n, s) => a.parse(l, n, s), finish: (s) => a.finish?.(s) ?? [] };
};

const PARSERS: Readonly<Record<TranscriptFormat, FormatParser>> = {
  claude: viaAdapter('claude'),
  'claude-stream': { agent: 'claude', newState: newClaudeStreamState, parse: (l, n, s) => parseClaudeStreamLine(l, n, s as ReturnType<typeof newClaudeStreamState>) },
  codex: viaAdapter('codex'),
  gemini: viaAdapter('gemini'),
  generic: viaAdapter('generic'),
  events: { agent: 'generic', newState: () => undefined, parse: (l, n) => parseAgentEventLine(l, n) },
};

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const GEMINI_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

/** The format one record shows, or null when it could be several (or none). */
export function formatOfRecord(r: Record<string, unknown>): TranscriptFormat | null {
  if (typeof r.kind === 'string' && EVENT_KINDS.includes(r.kind) && typeof r.id === 'string') return 'events';
  if (typeof r.type === 'string' && CODEX_TYPES.has(r.type) && isRecord(r.payload)) return 'codex';
  if (r.type === 'tool_start' || r.type === 'tool_end') return 'generic';
  if (isClaudeStreamRecord(r)) return 'claude-stream';
  // Gemini's metadata names its session too; its messages have content but no message.
  if (typeof r.projectHash === 'string' || '$set' in r || '$rewindTo' in r) return 'gemini';
  if (typeof r.id === 'string' && typeof r.type === 'string' && GEMINI_TYPES.has(r.type) && 'content' in r && !('message' in r)) return 'gemini';
  if (typeof r.sessionId === 'string' && typeof r.type === 'string') return 'claude';
  if ((r.type === 'summary' && typeof r.leafUuid === 'string') || r.type === 'file-history-snapshot') return 'claude';
  return null;
}

export interface StoredTranscriptFile extends StoredTranscript {
  readonly format: TranscriptFormat;
}

/**
 * Reads one transcript; `format` as told (`--agent`) or detected from the
 * first record that tells. A file that is none is an InputError naming it
 * (and the first line that is not JSON, if that is why).
 */
export async function readTranscript(path: string, format?: TranscriptFormat): Promise<StoredTranscriptFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new InputError(`cannot read: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`, { file: path, cause });
  }
  const lines = text.split('\n');
  const chosen = format ?? detect(path, lines);
  const parser = PARSERS[chosen];
  const state = parser.newState(basename(path));
  const events: AgentEvent[] = [];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    const out = parser.parse(line.replace(/\r$/, ''), i + 1, state);
    if (Array.isArray(out)) events.push(...out);
    else problems.push(`${path}:${i + 1}: ${out.error}`);
  });
  events.push(...(parser.finish?.(state) ?? []));
  return { path, format: chosen, agent: parser.agent, events, problems };
}

function detect(path: string, lines: readonly string[]): TranscriptFormat {
  let firstBad: { line: number; error: string } | undefined;
  let records = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    const parsed = parseRecord(lines[i]!);
    if ('error' in parsed) {
      firstBad ??= { line: i + 1, error: parsed.error };
      continue;
    }
    records++;
    const f = formatOfRecord(parsed.record);
    if (f) return f;
  }
  if (records === 0 && firstBad) throw new InputError(`not a transcript: ${firstBad.error}`, { file: path, line: firstBad.line });
  const what = records === 0 ? 'no records' : `none of its ${records} record(s) is`;
  throw new InputError(`not a transcript: ${what} of a Claude Code session or stream-json, a Codex rollout, a Gemini chat, an event file or agent events (--agent names the format)`, { file: path });
}

/**
 * The transcripts PATHs name: a file as given, a folder searched (every
 * `*.jsonl` below it, in name order). A path that does not exist is an
 * error; the others are still listed.
 */
export async function transcriptFiles(paths: readonly string[]): Promise<{ files: string[]; errors: InputError[] }> {
  const files: string[] = [];
  const errors: InputError[] = [];
  for (const p of paths) {
    const st = await stat(p).catch((cause: NodeJS.ErrnoException) => cause);
    if (st instanceof Error) {
      errors.push(new InputError(st.code === 'ENOENT' ? 'no such file or folder' : `cannot read: ${st.code ?? st.message}`, { file: p, cause: st }));
    } else if (st.isDirectory()) {
      const found = (await readdir(p, { recursive: true })).filter((n) => n.endsWith('.jsonl')).sort();
      files.push(...found.map((n) => join(p, n)));
    } else {
      files.push(p);
    }
  }
  return { files, errors };
}

/** A format by name (`--agent`), or an InputError naming the value. */
export function parseTranscriptFormat(name: string): TranscriptFormat {
  const n = name.trim().toLowerCase();
  if ((TRANSCRIPT_FORMATS as readonly string[]).includes(n)) return n as TranscriptFormat;
  throw new InputError(`--agent ${JSON.stringify(name)}: expected one of ${TRANSCRIPT_FORMATS.join(', ')}`);
}
