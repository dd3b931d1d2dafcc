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
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { watch, type FSWatcher } from 'chokidar';
import type { ToolEvent, ToolEventSource } from '../core/tool-events.js';

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

/**
 * chokidar drops a 'change' within 50 ms of the previous one (and a raw
 * notification within 5 ms) and never replays it. We also listen to 'raw',
 * and each burst ends with one re-read timed after chokidar's throttle clears.
 */
const TRAILING_READ_MS = 75;
const CHUNK = 1 << 20;

export class EventFileSource implements ToolEventSource {
  private readonly eventListeners: Array<(e: ToolEvent) => void> = [];
  private readonly problemListeners: Array<(m: string) => void> = [];
  /** Held until the first listener arrives: open() already read the file. */
  private readonly queuedEvents: ToolEvent[] = [];
  private readonly queuedProblems: string[] = [];
  private readonly lines = new LineSplitter();
  private offset = 0;
  private ino: number | undefined;
  private watcher: FSWatcher | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private trailing: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  private constructor(readonly path: string) {}

  static async open(path: string, options: EventFileOptions = {}): Promise<EventFileSource> {
    // 'a' creates a missing file and never truncates one a hook already wrote to.
    await (await openFile(path, 'a')).close();
    const source = new EventFileSource(path);
    // Watch before the first read: anything appended in between is then seen by one or the other.
    source.watcher = watch(path, {
      // The job's own handles keep the process alive; a forgotten source must not.
      persistent: false,
      ignoreInitial: true,
      awaitWriteFinish: false,
    });
    source.watcher.on('all', () => source.kick());
    source.watcher.on('raw', () => source.kick());
    source.watcher.on('error', (e) => source.problem(`${path}: watch failed: ${errText(e)}`));
    await new Promise<void>((resolve) => source.watcher?.once('ready', resolve));
    await source.drain();
    const pollMs = options.safetyPollMs ?? 1000;
    if (pollMs > 0) {
      source.poll = setInterval(() => void source.drain(), pollMs);
      source.poll.unref();
    }
    return source;
  }

  onEvent(listener: (event: ToolEvent) => void): void {
    this.eventListeners.push(listener);
    for (const e of this.queuedEvents.splice(0)) this.deliver(listener, e);
  }

  onProblem(listener: (message: string) => void): void {
    this.problemListeners.push(listener);
    for (const m of this.queuedProblems.splice(0)) safeCall(listener, m);
  }

  /** Stops watching after reading what is already in the file (an unterminated last line included). */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    clearTimeout(this.trailing);
    clearInterval(this.poll);
    await this.watcher?.close();
    await this.drain();
    const rest = this.lines.flush();
    if (rest !== undefined) this.handleLine(rest.text, rest.lineNo);
    this.closed = true;
  }

  private kick(): void {
    if (this.closing) return;
    void this.drain();
    clearTimeout(this.trailing);
    this.trailing = setTimeout(() => void this.drain(), TRAILING_READ_MS);
    this.trailing.unref();
  }

  /** One reader at a time; a request during a read causes one more pass after it. */
  private drain(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.readNew();
      } while (this.again);
    })().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readNew(): Promise<void> {
    let fh: FileHandle;
    try {
      fh = await openFile(this.path, 'r');
    } catch (e) {
      // Deleted: start over when it comes back. Anything else is worth a word.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.restart(undefined);
      else this.problem(`${this.path}: cannot read: ${errText(e)}`);
      return;
    }
    try {
      await this.readFrom(fh);
    } catch (e) {
      this.problem(`${this.path}: cannot read: ${errText(e)}`);
    } finally {
      await fh.close();
    }
  }

  private async readFrom(fh: FileHandle): Promise<void> {
    const st = await fh.stat();
    // Truncated or replaced: the old offset means nothing in the new content.
    if (st.size < this.offset || (this.ino !== undefined && st.ino !== this.ino)) this.restart(st.ino);
    this.ino = st.ino;
    // Read up to the size seen now; notifications may have been coalesced.
    while (this.offset < st.size) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, st.size - this.offset));
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
      if (bytesRead === 0) break; // truncated under us; the next pass restarts
      this.offset += bytesRead;
      for (const l of this.lines.push(buf.subarray(0, bytesRead))) this.handleLine(l.text, l.lineNo);
    }
  }

  private restart(ino: number | undefined): void {
    this.offset = 0;
    this.ino = ino;
    this.lines.reset();
  }

  private handleLine(text: string, lineNo: number): void {
    if (text.trim() === '') return;
    const r = parseEventLine(text);
    if ('error' in r) this.problem(`${this.path}:${lineNo}: ${r.error}`);
    else this.event(r);
  }

  private event(e: ToolEvent): void {
    if (this.closed) return;
    if (this.eventListeners.length === 0) this.queuedEvents.push(e);
    for (const l of this.eventListeners) this.deliver(l, e);
  }

  private deliver(listener: (e: ToolEvent) => void, e: ToolEvent): void {
    try {
      listener(e);
    } catch (err) {
      this.problem(`${this.path}: event listener failed on ${e.phase} ${e.name}: ${errText(err)}`);
    }
  }

  private problem(message: string): void {
    if (this.closed) return;
    if (this.problemListeners.length === 0) this.queuedProblems.push(message);
    for (const l of this.problemListeners) safeCall(l, message);
  }
}

function safeCall(listener: (m: string) => void, message: string): void {
  try {
    listener(message);
  } catch {
    // A failing problem reporter has nowhere left to report to.
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

interface Line {
  text: string;
  lineNo: number;
}

/** Splits bytes into lines; splitting on 0x0A before decoding keeps multi-byte chars whole. */
class LineSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private lineNo = 0;

  push(chunk: Buffer): Line[] {
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Line[] = [];
    let start = 0;
    let nl: number;
    while ((nl = data.indexOf(0x0a, start)) !== -1) {
      out.push(this.line(data.toString('utf8', start, nl)));
      start = nl + 1;
    }
    // Copy: a subarray would pin the whole read chunk for one partial line.
    this.pending = Buffer.from(data.subarray(start));
    return out;
  }

  /** The unterminated tail, if any, as a last line. */
  flush(): Line | undefined {
    if (this.pending.length === 0) return undefined;
    const text = this.pending.toString('utf8');
    this.pending = Buffer.alloc(0);
    return this.line(text);
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
    this.lineNo = 0;
  }

  private line(text: string): Line {
    return { text: text.endsWith('\r') ? text.slice(0, -1) : text, lineNo: ++this.lineNo };
  }
}
