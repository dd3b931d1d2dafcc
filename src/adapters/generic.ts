/**
 * Any other program: the job's event file (NIGHTSHIFT_EVENTS, format in
 * src/events/event-file.ts) is its transcript. tool_start → tool-call,
 * tool_end → tool-result. The file carries no prompts, texts or usage, so
 * only tool events come out. An optional object `args` on tool_start is used
 * for the canonical form (hooks may pass the tool's input); without it, calls
 * of one tool all look alike.
 */
import { resolve } from 'node:path';
import type { AgentEvent } from '../core/agent-events.js';
import { parseEventLine } from '../events/event-file.js';
import { canonicalCall, fingerprint, isRecord, parseRecord, timeOf } from './normalise.js';
import { idMaker, type AgentAdapter, type AgentJob, type ParseResult } from './types.js';

export interface GenericState {
  readonly source: string;
  /** Open calls: by id when the line has one, else by name (oldest first). */
  readonly byId: Map<string, { eventId: string; tool: string }>;
  readonly byName: Map<string, string[]>;
  t: number;
}

export function newGenericState(source: string): GenericState {
  return { source, byId: new Map(), byName: new Map(), t: 0 };
}

export function parseGenericLine(line: string, lineNo: number, s: GenericState): ParseResult {
  if (line.trim() === '') return [];
  const e = parseEventLine(line);
  if ('error' in e) return e;
  const raw = parseRecord(line);
  const rec = 'error' in raw ? {} : raw.record;
  s.t = timeOf(rec.ts, s.t);
  const id = idMaker(s.source, lineNo)();
  if (e.phase === 'start') {
    const args = isRecord(rec.args) ? rec.args : {};
    if (e.id !== undefined) s.byId.set(e.id, { eventId: id, tool: e.name });
    else s.byName.set(e.name, [...(s.byName.get(e.name) ?? []), id]);
    const call: AgentEvent = { kind: 'tool-call', id, t: s.t, tool: e.name, args, canonical: canonicalCall(e.name, args) };
    return [call];
  }
  const ok = e.ok ?? true;
  const result: AgentEvent = {
    kind: 'tool-result',
    id,
    t: s.t,
    callId: takeCall(s, e.name, e.id),
    tool: e.name,
    ok,
    // No output in the event file: the fingerprint only tells success from failure.
    fingerprint: fingerprint(ok ? 'ok' : 'failed'),
    errorHead: null,
  };
  return [result];
}

/** The tool-call event this end closes; its own id when the start was never seen. */
function takeCall(s: GenericState, name: string, id: string | undefined): string {
  if (id !== undefined) {
    const call = s.byId.get(id);
    s.byId.delete(id);
    return call?.eventId ?? id;
  }
  const open = s.byName.get(name) ?? [];
  const first = open.shift();
  if (open.length === 0) s.byName.delete(name);
  return first ?? '';
}

/** The event file named in the job's environment; it is per job, so never shared. */
export async function locateGeneric(job: AgentJob): Promise<string | null> {
  const file = job.env.NIGHTSHIFT_EVENTS;
  if (!file) return null;
  const path = resolve(job.cwd, file);
  job.claimed.add(path);
  return path;
}

export const genericAdapter: AgentAdapter<GenericState> = {
  kind: 'generic',
  locate: locateGeneric,
  newState: newGenericState,
  parse: parseGenericLine,
};
