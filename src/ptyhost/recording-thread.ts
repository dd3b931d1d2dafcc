/**
 * The host's recordings on a worker thread. A tty hands over at most 4 KB a
 * read and its writer waits while the reader is busy, so every ms the host
 * spends per read is a ms the job waits: decoding, JSON-escaping and writing
 * the asciicast lines was 0.85 s of host CPU per 200 MB, holding a flood at
 * 0.73x of a bare reader. Here the host's thread only copies the bytes out
 * (gathered for FLUSH_MS, one message per batch) and the worker does the rest.
 * The batches pass through memory both threads share (recording-ring.ts),
 * so a flood allocates nothing per batch on either side, and the worker
 * counts what it took in shared memory too (TAKEN), with no reply per batch.
 *
 * Bounded loss: the file is the worker's writes, so a kill -9 of the host
 * loses what is gathered (10 ms) and what the worker has not written yet;
 * that is kept under BEHIND_BYTES by pausing the job's PTY until the worker
 * catches up (the same pause a slow client gets).
 */
import { closeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerUrl } from '../util/worker-url.js';
import { RecordingRing } from './recording-ring.js';
import { CastAppender, type CastHeader } from './recording.js';

export type ToRecorder =
  | { op: 'adopt'; key: number; path: string; fd: number; written: number; startMs: number; cap: number | null }
  | { op: 'ring'; memory: SharedArrayBuffer; control: SharedArrayBuffer }
  /** A batch: in the ring at `at`, or (the ring full) in `data`, a buffer of its own. */
  | { op: 'o'; key: number; t: number; at: number; len: number; data?: ArrayBuffer }
  | { op: 'r'; key: number; t: number; cols: number; rows: number }
  | { op: 'i' | 'm'; key: number; t: number; data: string }
  | { op: 'suspend'; key: number }
  | { op: 'close'; key: number; t: number; marker: string | null };

export type FromRecorder =
  /** Batches were taken (TAKEN moved) while the host asked to hear of it (WAKE). */
  | { op: 'wake' }
  | { op: 'problem'; key: number; message: string; code: string | null }
  | { op: 'closed'; key: number };

/**
 * Two counters both threads share (Int32Array over `control`): TAKEN, the
 * batches the worker has written (it adds one per batch, in the order they
 * were sent), and WAKE, set by the host when it waits for that count to move
 * (a recording behind): the worker then says so once, and clears it. A
 * reply per batch cost the host's thread, which also reads the job's PTY, a
 * message event per batch.
 */
export const TAKEN = 0;
export const WAKE = 1;

const FLUSH_MS = 10;
const BATCH_BYTES = 256 * 1024;
/** What one flood has in flight at most (BEHIND_BYTES) and a batch more; several at once may overflow to buffers of their own. */
/** Output handed to the worker and not yet taken: past this the job's PTY waits (bounds a crash's loss too). */
const BEHIND_BYTES = 4 * 1024 * 1024;
/** What one flood has in flight at most (BEHIND_BYTES) and a batch more; several at once may overflow to buffers of their own. */
const RING_BYTES = BEHIND_BYTES + 2 * BATCH_BYTES;

export interface RecordingEvents {
  problem(e: Error): void;
  /** True: the worker is behind, hold the job's output; false: go on. */
  behind(behind: boolean): void;
}

/** What HostJob uses of a recording (CastAppender's calls), wherever it is written. */
export interface JobRecording {
  output(data: Buffer, nowMs: number): void;
  resize(cols: number, rows: number, nowMs: number): void;
  input(data: string, nowMs: number): void;
  marker(label: string, nowMs: number): void;
  suspend(): void;
  /** Resolves once the file is complete and closed. */
  close(marker: string | null, nowMs: number): Promise<void>;
}

let thread: RecordingThread | undefined;

/** The host's one recording thread, started with the first recording. */
export function recordingThread(): RecordingThread {
  thread ??= new RecordingThread();
  return thread;
}

export class RecordingThread {
  private readonly worker: Worker;
  private readonly open = new Map<number, RemoteRecording>();
  private nextKey = 1;
  private readonly ring = new RecordingRing(RING_BYTES);
  private readonly control = new Int32Array(new SharedArrayBuffer(8));
  /** The batches sent and not yet known taken, oldest first. */
  private readonly sent: Array<{ readonly rec: RemoteRecording; readonly bytes: number; readonly ring: boolean }> = [];
  /** How many batches the host has seen taken (TAKEN, as of the last sync). */
  private seen = 0;

  constructor() {
    this.worker = new Worker(workerUrl('ptyhost/recording-worker.js'));
    // The jobs keep the host alive; a recording thread with nothing to do never does.
    this.worker.unref();
    this.worker.postMessage({ op: 'ring', memory: this.ring.memory, control: this.control.buffer as SharedArrayBuffer } satisfies ToRecorder);
    this.worker.on('message', (m: FromRecorder) => {
      if (m.op === 'wake') return this.sync();
      this.sync();
      this.open.get(m.key)?.received(m);
    });
    this.worker.on('error', (e) => {
      for (const r of this.open.values()) r.failed(new Error(`the recording thread failed: ${e.message}`, { cause: e }));
    });
  }

  /** Creates the file and writes its header here (a bad path fails the spawn); the events go to the worker. */
  create(path: string, header: CastHeader, startMs: number, cap: number, on: RecordingEvents): JobRecording {
    const { fd, written } = CastAppender.create(path, header, startMs);
    const key = this.nextKey++;
    const rec = new RemoteRecording(key, this, on, () => {
      // Once: a second close of the number could close a file opened since under it.
      if (!this.open.delete(key)) return;
      closeSync(fd);
    });
    this.open.set(key, rec);
    this.worker.postMessage({ op: 'adopt', key, path, fd, written, startMs, cap: Number.isFinite(cap) ? cap : null } satisfies ToRecorder);
    return rec;
  }

  post(m: ToRecorder, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(m, transfer);
  }

  /** A batch to the worker, its bytes copied once: into the ring, or into a buffer of its own that moves to the worker. */
  sendBatch(rec: RemoteRecording, key: number, t: number, chunks: readonly Buffer[], len: number): void {
    this.sync();
    const at = this.ring.put(chunks, len);
    this.sent.push({ rec, bytes: len, ring: at >= 0 });
    if (at >= 0) return this.post({ op: 'o', key, t, at, len });
    // Its own memory (Buffer.concat may hand out a slice of Node's shared pool, which must not move).
    const data = new ArrayBuffer(len);
    const view = new Uint8Array(data);
    for (let to = 0, i = 0; i < chunks.length; to += chunks[i]!.length, i++) view.set(chunks[i]!, to);
    this.post({ op: 'o', key, t, at: 0, len, data }, [data]);
  }

  /** Asks the worker to say when it takes a batch (a recording is behind); checked again after asking, so a batch taken just before is not missed. */
  wantWake(): void {
    Atomics.store(this.control, WAKE, 1);
    this.drain();
  }

  /** Counts what the worker has taken since the last look; while a recording is still behind, asks to hear of the next. */
  private sync(): void {
    this.drain();
    for (const r of this.open.values()) if (r.behind) return this.wantWake();
  }

  /** Frees the ring's room and counts the bytes of every batch taken since the last look, oldest first. */
  private drain(): void {
    const taken = Atomics.load(this.control, TAKEN);
    while (((taken - this.seen) | 0) > 0 && this.sent.length > 0) {
      const b = this.sent.shift()!;
      this.seen = (this.seen + 1) | 0;
      if (b.ring) this.ring.free();
      b.rec.took(b.bytes);
    }
  }
}

class RemoteRecording implements JobRecording {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private at = 0;
  private timer: NodeJS.Timeout | undefined;
  private unwritten = 0;
  private isBehind = false;
  private closing: Promise<void> | undefined;
  private resolveClosed: (() => void) | undefined;
  private dead = false;

  constructor(
    private readonly key: number,
    private readonly thread: RecordingThread,
    private readonly on: RecordingEvents,
    private readonly forget: () => void,
  ) {}

  output(data: Buffer, nowMs: number): void {
    if (this.closing || this.dead) return;
    if (this.chunks.length === 0) this.at = nowMs;
    this.chunks.push(data);
    this.bytes += data.length;
    if (this.bytes >= BATCH_BYTES) this.send();
    else this.timer ??= setTimeout(() => this.send(), FLUSH_MS);
  }

  resize(cols: number, rows: number, nowMs: number): void {
    this.event({ op: 'r', key: this.key, t: nowMs, cols, rows });
  }

  input(data: string, nowMs: number): void {
    this.event({ op: 'i', key: this.key, t: nowMs, data });
  }

  marker(label: string, nowMs: number): void {
    this.event({ op: 'm', key: this.key, t: nowMs, data: label });
  }

  suspend(): void {
    this.event({ op: 'suspend', key: this.key });
  }

  close(marker: string | null, nowMs: number): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.resolveClosed = resolve;
      this.send();
      if (this.dead) return this.closed();
      this.thread.post({ op: 'close', key: this.key, t: nowMs, marker });
    });
    return this.closing;
  }

  received(m: Exclude<FromRecorder, { op: 'wake' }>): void {
    if (m.op === 'problem') this.on.problem(Object.assign(new Error(m.message), m.code ? { code: m.code } : {}));
    else this.closed();
  }

  /** The worker is gone: nothing more is written, and nothing waits for it. */
  failed(e: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.on.problem(e);
    // Nothing will be taken any more: the job's output must not wait for it.
    this.took(this.unwritten);
    if (this.closing) this.closed();
  }

  private closed(): void {
    this.forget();
    this.resolveClosed?.();
  }

  private event(m: ToRecorder): void {
    if (this.closing || this.dead) return;
    this.send();
    this.thread.post(m);
  }

  /** Gathered output to the worker (RecordingThread.sendBatch). */
  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.chunks.length === 0 || this.dead) return;
    const len = this.bytes;
    this.unwritten += len;
    this.thread.sendBatch(this, this.key, this.at, this.chunks, len);
    this.chunks = [];
    this.bytes = 0;
    if (!this.isBehind && this.unwritten > BEHIND_BYTES) {
      this.isBehind = true;
      this.on.behind(true);
    }
    if (this.isBehind) this.thread.wantWake();
  }

  /** Holding the job's output until the worker catches up. */
  get behind(): boolean {
    return this.isBehind;
  }

  /** The worker has written `bytes` more (RecordingThread.drain). */
  took(bytes: number): void {
    this.unwritten -= bytes;
    if (this.isBehind && this.unwritten <= BEHIND_BYTES / 4) {
      this.isBehind = false;
      this.on.behind(false);
    }
  }
}
