/**
 * The job's tool-call event file (NIGHTSHIFT_EVENTS): JSON Lines, appended to
 * by the agent's hooks, one object per line:
 *
 *   {"type": "tool_start", "name": "Bash", "id": "call_1", "ts": "2025-01-01T00:00:00Z"}
 *   {"type": "tool_end",   "name": "Bash", "id": "call_1", "ok": true, "ts": 1735689600000}
 *
 *   type  required  "tool_start" | "tool_end"
 *   name  required  non-empty string, the tool's name
 *   id    optional  string pairing an end with its start (names pair when absent)
 *   ok    optional  boolean, for tool_end: did the call succeed
 *   ts    optional  ISO 8601 string or epoch milliseconds; checked, not used
 *
 * Other fields are ignored. Blank lines are skipped. A line is only read once
 * its newline has arrived. The file is per job and fresh, so it is read from
 * the beginning.
 */
import { open as openFile } from 'node:fs/promises';
import type { ToolEvent, ToolEventSource } from '../core/tool-events.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { LineTail } from './line-tail.js';

/** What a source holds for a listener that has not come yet; a fresh per-job file stays far below it. */
export const HELD = 100_000;

export function parseEventLine(line: string): ToolEvent | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { error: `invalid JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return { error: `expected a JSON object, got ${Array.isArray(v) ? 'an array' : JSON.stringify(v)}` };
  }
  const o = v as Record<string, unknown>;
  const { type, name, id, ok, ts } = o;
  if (type !== 'tool_start' && type !== 'tool_end') {
    const got = type === undefined ? 'no "type"' : `type ${JSON.stringify(type)}`;
    return { error: `${got} (expected "tool_start" or "tool_end")` };
  }
  if (typeof name !== 'string' || name === '') {
    return { error: `"name" must be a non-empty string, got ${JSON.stringify(name) ?? 'nothing'}` };
  }
  if (id !== undefined && typeof id !== 'string') {
    return { error: `"id" must be a string, got ${JSON.stringify(id)}` };
  }
  if (ok !== undefined && typeof ok !== 'boolean') {
    return { error: `"ok" must be true or false, got ${JSON.stringify(ok)}` };
  }
  if (ts !== undefined && !validTs(ts)) {
    return { error: `"ts" must be an ISO date string or epoch milliseconds, got ${JSON.stringify(ts)}` };
  }
  const phase = type === 'tool_start' ? 'start' : 'finish';
  return {
    phase,
    name,
    ...(id !== undefined && { id }),
    ...(ok !== undefined && phase === 'finish' && { ok }),
  };
}

function validTs(ts: unknown): boolean {
  if (typeof ts === 'number') return Number.isFinite(ts) && ts >= 0;
  return typeof ts === 'string' && !Number.isNaN(Date.parse(ts));
}

export interface EventFileOptions {
  /**
   * A stat every this many ms as a backstop for lost notifications (network
   * and overlay filesystems); 0 turns it off. Default 1000.
   */
  safetyPollMs?: number;
}

/** The event file followed by a LineTail (see line-tail.ts), each line parsed by parseEventLine. */
export class EventFileSource implements ToolEventSource {
  /** Held until the first listener arrives: open() already read the file. */
  private readonly events = new Emitter<ToolEvent>({
    buffer: HELD,
    onListenerError: (err, e) => this.problem(`${this.path}: event listener failed on ${e.phase} ${e.name}: ${errText(err)}`),
  });
  // A failing problem reporter has nowhere left to report to.
  private readonly problems = new Emitter<string>({ buffer: HELD, onListenerError: () => undefined });
  private tail: LineTail | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  private constructor(readonly path: string) {}

  static async open(path: string, options: EventFileOptions = {}): Promise<EventFileSource> {
    // 'a' creates a missing file and never truncates one a hook already wrote to.
    await (await openFile(path, 'a')).close();
    const source = new EventFileSource(path);
    source.tail = await LineTail.open(
      path,
      {
        line: (text, lineNo) => source.handleLine(text, lineNo),
        // Truncated or replaced: the tail starts over from line 1; nothing to undo here.
        restart: () => {},
        problem: (m) => source.problem(m),
      },
      options.safetyPollMs ?? 1000,
    );
    return source;
  }

  onEvent(listener: (event: ToolEvent) => void): Disposable {
    return this.events.event(listener);
  }

  onProblem(listener: (message: string) => void): Disposable {
    return this.problems.event(listener);
  }

  /** Stops watching after reading what is already in the file (an unterminated last line included). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.tail?.close({ flushPartial: true });
      this.closed = true;
    })();
    return this.closing;
  }

  private handleLine(text: string, lineNo: number): void {
    if (text.trim() === '') return;
    const r = parseEventLine(text);
    if ('error' in r) this.problem(`${this.path}:${lineNo}: ${r.error}`);
    else this.event(r);
  }

  private event(e: ToolEvent): void {
    if (!this.closed) this.events.fire(e);
  }

  private problem(message: string): void {
    if (!this.closed) this.problems.fire(message);
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
