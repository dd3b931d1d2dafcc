/**
 * Follows one job's agent transcript: waits for the file to appear (agents
 * create it after they start, often only at the first prompt), picks the
 * job's own file through the adapter's locate rules, reads it from the start
 * while it grows, and emits the normalised AgentEvents plus the tool
 * start/finish ToolEvents the watchdog's tool-call gap uses.
 *
 * Problems (an unreadable line, a failed look-up) are reported, never thrown:
 * a transcript is evidence, not a dependency of the job.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AgentEvent } from '../core/agent-events.js';
import type { ToolEvent, ToolEventSource } from '../core/tool-events.js';
import { HELD } from '../events/event-file.js';
import { LineTail } from '../events/line-tail.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import type { AgentAdapter, AgentJob, ParseResult } from './types.js';

export interface FollowOptions {
  /** How often to look for the transcript until it is found. Default 250 ms. */
  locatePollMs?: number;
  /** Backstop re-read of the followed file for lost notifications; 0 turns it off. Default 1000 ms. */
  safetyPollMs?: number;
  /** Say once that no transcript turned up after this long (looking goes on); 0: never. Default 60 s. */
  missingAfterMs?: number;
  /** A resumed job: what an earlier job already read of a transcript, parsed again but never emitted. */
  resumeFrom?: ResumePoint;
}

/** The first `lines` lines of `path` were judged by another job; `lastEvent` was the last event they gave. */
export interface ResumePoint {
  readonly path: string;
  readonly lines: number;
  readonly lastEvent: string | null;
  /**
   * The same job, adopted by a new daemon after a restart: the previous
   * daemon judged the first `lines` lines of `path` (its ledger), and the
   * agent is still in the turn it watched, so what follows is read as new.
   * Of any other file (no ledger: path ''), every complete line it holds
   * when following starts counts as judged.
   */
  readonly adopted?: boolean;
}

/** How far a follower has read: a resume card records it so the next job skips it. */
export interface ReadPosition {
  readonly path: string;
  readonly lines: number;
  readonly lastEvent: string | null;
}

export class TranscriptFollower implements ToolEventSource {
  /** Each held until its first listener arrives. */
  private readonly agentEvents = new Emitter<AgentEvent>({ buffer: HELD, onListenerError: (err) => this.listenerFailed(err) });
  private readonly toolEvents = new Emitter<ToolEvent>({ buffer: HELD, onListenerError: (err) => this.listenerFailed(err) });
  // A failing problem reporter has nowhere left to report to.
  private readonly problems = new Emitter<string>({ buffer: HELD, onListenerError: () => undefined });
  private tail: LineTail | undefined;
  private state: unknown;
  private file: string | null = null;
  /** A short hash of each line handled, so a re-read after truncation repeats nothing it already said. */
  private readonly handled: string[] = [];
  private replaying = false;
  /** Lines up to this one were judged by an earlier job (resumeFrom): parsed for the parser's state only. */
  private skipThrough = 0;
  /**
   * After a resume point, until the next turn starts: the old turn's tail (its
   * end, late results of its calls), which the agent writes on resuming. The
   * new job did not see that turn, so a verdict on it would be the old job's.
   */
  private oldTurnTail = false;
  private linesRead = 0;
  private lastEvent: string | null = null;
  private wake: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;
  /** Resolves with the transcript's path once it is being followed, or null if closed first. */
  readonly found: Promise<string | null>;

  constructor(
    readonly adapter: AgentAdapter,
    readonly job: AgentJob,
    private readonly opts: FollowOptions = {},
  ) {
    this.found = this.run();
  }

  /** The followed transcript, once found. */
  get path(): string | null {
    return this.file;
  }

  /** Where reading stands: the complete lines read and the last event they gave; null before the file is found. */
  get position(): ReadPosition | null {
    return this.file === null ? null : { path: this.file, lines: this.linesRead, lastEvent: this.lastEvent };
  }

  onAgentEvent(listener: (event: AgentEvent) => void): Disposable {
    return this.agentEvents.event(listener);
  }

  /** Tool starts and finishes (ToolEventSource): ids are the tool-call events' ids, so they pair. */
  onEvent(listener: (event: ToolEvent) => void): Disposable {
    return this.toolEvents.event(listener);
  }

  onProblem(listener: (message: string) => void): Disposable {
    return this.problems.event(listener);
  }

  /** Stops looking, reads what the file holds now (complete lines), then stops following. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.wake?.();
      await this.found;
      await this.tail?.close();
      // The job is over: a format with no end-of-turn marker owes its last turn's end.
      if (this.tail && this.state !== undefined) for (const e of this.adapter.finish?.(this.state) ?? []) this.emit(e);
      this.closed = true;
    })();
    return this.closing;
  }

  private async run(): Promise<string | null> {
    const started = Date.now();
    const missingAfter = this.opts.missingAfterMs ?? 60_000;
    let lastError = '';
    let warned = false;
    // Once chosen (and so claimed), a path is kept: a later look would find it claimed.
    let path: string | null = null;
    for (;;) {
      // Closing: the job is over. One last look, so an agent that wrote its whole
      // transcript and exited between two looks (`claude -p`) is still judged. Its
      // process is gone, so no announcement can come: it is looked for without a pid.
      const last = this.closing !== undefined;
      try {
        path ??= await this.adapter.locate(last ? { ...this.job, pid: undefined } : this.job);
        if (path !== null && (await isFile(path))) return await this.follow(path);
        lastError = '';
      } catch (e) {
        const m = errText(e);
        if (m !== lastError) this.problem(`looking for the ${this.adapter.kind} transcript failed: ${m}`);
        lastError = m;
      }
      if (last) return null;
      if (!warned && missingAfter > 0 && Date.now() - started >= missingAfter) {
        warned = true;
        this.problem(`no ${this.adapter.kind} transcript for the job in ${this.job.cwd} after ${+(missingAfter / 1000).toFixed(1)} s; still looking`);
      }
      await this.sleep(this.opts.locatePollMs ?? 250);
    }
  }

  private async follow(path: string): Promise<string> {
    this.file = path;
    const from = this.opts.resumeFrom;
    // Adopted: the agent is still in the turn the old daemon watched, so what follows is not an old turn's tail.
    if (from?.adopted) this.skipThrough = from.path === path ? from.lines : await completeLines(path);
    else if (from && from.path === path) [this.skipThrough, this.oldTurnTail] = [from.lines, true];
    this.state = this.adapter.newState(basename(path));
    this.tail = await LineTail.open(
      path,
      {
        line: (text, lineNo) => this.onLine(text, lineNo),
        restart: () => this.onRestart(),
        problem: (m) => this.problem(m),
      },
      this.opts.safetyPollMs ?? 1000,
    );
    return path;
  }

  private onLine(text: string, lineNo: number): void {
    const r = this.adapter.parse(text, lineNo, this.state);
    const hash = createHash('sha1').update(text).digest('base64').slice(0, 12);
    if (this.replaying) {
      // The same line as before: parsed only to rebuild the parser's state.
      if (this.handled[lineNo - 1] === hash) return;
      // The content differs from here on: it is new, report it.
      this.replaying = false;
      this.handled.length = lineNo - 1;
    }
    this.handled[lineNo - 1] = hash;
    this.linesRead = Math.max(this.linesRead, lineNo);
    if (lineNo <= this.skipThrough) return this.skipped(r, lineNo);
    if (!Array.isArray(r)) {
      this.problem(`${this.file}:${lineNo}: ${r.error}`);
      return;
    }
    for (const e of r) this.emit(e);
  }

  /** A line the earlier job judged: its events only move the position; at its last line, check it is the same file. */
  private skipped(r: ParseResult, lineNo: number): void {
    if (Array.isArray(r) && r.length > 0) this.lastEvent = r[r.length - 1]!.id;
    const expected = this.opts.resumeFrom?.lastEvent ?? null;
    if (lineNo === this.skipThrough && expected !== null && this.lastEvent !== expected) {
      this.problem(`${this.file}:${lineNo}: the resume point's last event was ${expected}, the file now gives ${this.lastEvent ?? 'none'}; the transcript changed since the earlier job read it`);
    }
  }

  private onRestart(): void {
    this.state = this.adapter.newState(basename(this.file ?? ''));
    this.replaying = true;
    this.problem(`${this.file}: the transcript shrank or was replaced; reading it again from the start`);
  }

  private emit(e: AgentEvent): void {
    if (this.closed) return;
    this.lastEvent = e.id;
    if (this.oldTurnTail && e.kind !== 'turn-start') return;
    this.oldTurnTail = false;
    this.agentEvents.fire(e);
    if (e.kind === 'tool-call') this.toolEvents.fire({ phase: 'start', name: e.tool, id: e.id });
    if (e.kind === 'tool-result') this.toolEvents.fire({ phase: 'finish', name: e.tool, id: e.callId, ok: e.ok });
  }

  private listenerFailed(err: unknown): void {
    this.problem(`${this.file ?? this.adapter.kind}: event listener failed: ${errText(err)}`);
  }

  private problem(message: string): void {
    if (!this.closed) this.problems.fire(message);
  }

  /** A pause that close() cuts short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.wake = wake;
    });
  }
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((st) => st.isFile(), () => false);
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Complete lines in the file now (newline-terminated); 0 for a file that cannot be read. */
async function completeLines(path: string): Promise<number> {
  try {
    const buf = await readFile(path);
    let n = 0;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
    return n;
  } catch {
    return 0;
  }
}
