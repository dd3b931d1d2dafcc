import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync, writevSync } from 'node:fs';
import { InputError } from '../util/errors.js';
import { formatSize } from '../util/size.js';
import { JsonUtf8Escaper, maxEscapedBytes } from './json-bytes.js';

export interface CastWriterOptions {
  /** Past this many bytes only a marker and the last `tailBytes` of events are kept. */
  maxBytes?: number;
  tailBytes?: number;
  /** A write failed (a full disk): the recording stops there, still valid; called once. */
  onProblem?: (e: Error) => void;
}

/** A flood job wrote 110 MB in one night: a generous cap, and the end of the story kept. */
export const DEFAULT_RECORDING_CAP = 256 * 1024 ** 2;
const DEFAULT_TAIL_SHARE = 0.05;

export interface CastWriterHeader {
  width: number;
  height: number;
  command?: string;
  title?: string;
  env?: Record<string, string>;
  /** Unix seconds. */
  timestamp?: number;
}

/**
 * Writes an asciicast v2 file one event at a time. Every event is a single
 * synchronous write on an open fd with no user-space buffer, so if the process
 * dies the file holds every event handed over so far and still parses.
 * (Surviving power loss would need fsync; we do not pay for that per event.)
 *
 * Past `maxBytes` the file gets a `recording-cap:` marker and the events go
 * to a ring of the last `tailBytes`, written at close after a
 * `recording-tail:` marker (a crash loses that tail). A failed write (a full
 * disk) truncates the file back to its last whole event and stops it.
 */
export class CastWriter {
  private fd: number | undefined;
  /** Last written time in whole microseconds; times are clamped to never go back. */
  private lastMicros = 0;
  /** Bytes taken for the file: written, and gathering in `pending`. */
  private bytes = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private mode: 'write' | 'tail' | 'off' = 'write';
  private readonly ring: TailEvent[] = [];
  private ringBytes = 0;
  private readonly maxBytes: number;
  private readonly tailBytes: number;
  /** Output given as bytes (outputBytes) is escaped here, a character split between chunks joined. */
  private readonly escaper = new JsonUtf8Escaper();
  /** Where escaped lines are written, one after the other, until the next write to the file frees it: `pending` holds views of it. */
  private arena: Buffer | undefined;
  private arenaLen = 0;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly startMs: number,
    private readonly opts: CastWriterOptions,
  ) {
    this.fd = fd;
    this.maxBytes = opts.maxBytes ?? DEFAULT_RECORDING_CAP;
    this.tailBytes = Math.min(opts.tailBytes ?? Math.floor(this.maxBytes * DEFAULT_TAIL_SHARE), this.maxBytes);
  }

  static open(path: string, header: CastWriterHeader, startMs: number, opts: CastWriterOptions = {}): CastWriter {
    checkSize('width', header.width);
    checkSize('height', header.height);
    let fd: number;
    try {
      // Not 'w': on ext4, O_TRUNC (even of the empty file the job's folder starts with) makes close()
      // push the whole file to the disk first (auto_da_alloc), 20-60 ms at the end of every `run`.
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT);
      if (fstatSync(fd).size > 0) ftruncateSync(fd, 0);
    } catch (e) {
      throw new InputError(`cannot create recording ${path}: ${(e as Error).message}`, { cause: e });
    }
    const line = JSON.stringify({
      version: 2,
      width: header.width,
      height: header.height,
      timestamp: header.timestamp,
      command: header.command,
      title: header.title,
      env: header.env,
    });
    const writer = new CastWriter(path, fd, startMs, opts);
    writer.append(`${line}\n`);
    // The header at once: from its first moment the file is a cast with no events yet.
    writer.flush();
    return writer;
  }

  get closed(): boolean {
    return this.fd === undefined;
  }

  /** Whether events still reach the file (not stopped by a failed write or suspend()). */
  get recording(): boolean {
    return this.mode !== 'off' && this.fd !== undefined;
  }

  /** Stops recording with a last marker saying why (the disk is full elsewhere: leave its space to the board). */
  suspend(tMs: number, why: string): void {
    if (this.mode === 'off') return;
    this.flushTail();
    this.event(tMs, 'm', `recording-stopped:${why}`);
    this.flush();
    this.mode = 'off';
  }

  output(tMs: number, data: string): void {
    this.event(tMs, 'o', data);
  }

  /**
   * Output as the terminal's bytes, escaped from bytes to bytes
   * (json-bytes.ts) rather than decoded, stringified and encoded again: the
   * same line for valid UTF-8, a third of the cost. A character split
   * between chunks is written whole with the later one; one cut off by the
   * exit is U+FFFD. Do not mix with output() on one writer.
   */
  outputBytes(tMs: number, bytes: Uint8Array): void {
    if (this.fd === undefined || this.mode === 'off' || bytes.length === 0) return;
    const line = this.escapedLine(tMs, (out, at) => this.escaper.write(bytes, out, at), bytes.length);
    if (line) this.take(tMs, line);
  }

  input(tMs: number, data: string): void {
    this.event(tMs, 'i', data);
  }

  marker(tMs: number, label: string): void {
    this.event(tMs, 'm', label);
  }

  resize(tMs: number, cols: number, rows: number): void {
    this.event(tMs, 'r', `${cols}x${rows}`);
  }

  /** v2 has no exit event, so the status travels as an `exit:CODE` marker. */
  exit(tMs: number, code: number): void {
    this.endOutput(tMs);
    this.marker(tMs, `exit:${code}`);
  }

  close(): void {
    if (this.fd === undefined) return;
    this.endOutput(this.startMs + this.lastMicros / 1000);
    this.flushTail();
    this.flush();
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private event(tMs: number, code: string, data: string): void {
    if (this.fd === undefined || this.mode === 'off') return;
    // One encoding per event: its size decides the cap, and the same bytes are written.
    const line = Buffer.from(this.line(tMs, code, data), 'utf8');
    if (this.mode === 'write' && this.bytes + line.length > this.maxBytes - this.tailBytes) {
      this.append(this.line(tMs, 'm', `recording-cap:${formatSize(this.maxBytes)}: output dropped from here; the last ${formatSize(this.tailBytes)} follow the recording-tail marker`));
      this.mode = 'tail';
    }
    if (this.mode === 'tail') this.keepInTail({ t: this.lastMicros, code, data, bytes: line.length });
    else this.append(line);
  }

  private line(tMs: number, code: string, data: string): string {
    return formatEvent(this.stamp(tMs), code, data);
  }

  /** The event's time in microseconds from the start: a caller clock that steps back (NTP, a restarted drill) must not break v2's ordering. */
  private stamp(tMs: number): number {
    const micros = Math.round((tMs - this.startMs) * 1000);
    if (Number.isFinite(micros) && micros > this.lastMicros) this.lastMicros = micros;
    return this.lastMicros;
  }

  /** A character the bytes left unfinished: U+FFFD, as a decoder's end gives it. */
  private endOutput(tMs: number): void {
    if (!this.escaper.holding || this.fd === undefined || this.mode === 'off') return;
    const line = this.escapedLine(tMs, (out, at) => this.escaper.end(out, at), 0);
    if (line) this.take(tMs, line);
  }

  /** An output event whose text `escape` writes at `at` (room for `n` bytes escaped), in the arena; null when it wrote none (a character's first bytes, held). */
  private escapedLine(tMs: number, escape: (out: Buffer, at: number) => number, n: number): Buffer | null {
    const room = 48 + maxEscapedBytes(n);
    if (!this.arena || this.arenaLen + room > this.arena.length) {
      this.flush();
      // Lines still pending (a flush that could not write) keep the old arena: a fresh one then.
      if (!this.arena || this.pending.length > 0 || room > this.arena.length) this.arena = Buffer.allocUnsafe(Math.max(room, ARENA_BYTES));
      this.arenaLen = 0;
    }
    const out = this.arena;
    const start = this.arenaLen;
    const textAt = start + out.write(`[${(this.stamp(tMs) / 1e6).toFixed(6)}, "o", "`, start, 'latin1');
    const end = escape(out, textAt);
    if (end === textAt) return null;
    this.arenaLen = end + out.write('"]\n', end, 'latin1');
    return out.subarray(start, this.arenaLen);
  }

  /** An escaped output line (a view of the arena): to the file, or through the string path once the cap is near. */
  private take(tMs: number, line: Buffer): void {
    if (this.mode === 'write' && this.bytes + line.length <= this.maxBytes - this.tailBytes) return this.append(line);
    this.arenaLen -= line.length;
    // The cap and the tail keep text: the escaped body read back is exactly the text the bytes decode to.
    const body = line.toString('utf8', line.indexOf('"o", "') + 5, line.length - 2);
    this.event(tMs, 'o', JSON.parse(body) as string);
  }

  /**
   * The newest `tailBytes` of events. One output chunk can be larger than
   * the whole tail (a PTY read is up to 64 KB): it is cut to its end rather
   * than dropped, so the last thing the job printed is always there.
   */
  private keepInTail(e: TailEvent): void {
    this.ring.push(e);
    this.ringBytes += e.bytes;
    while (this.ringBytes > this.tailBytes && this.ring.length > 0) {
      const oldest = this.ring[0]!;
      const excess = this.ringBytes - this.tailBytes;
      if (oldest.code === 'o' && oldest.data.length > excess + 64) {
        oldest.data = oldest.data.slice(excess);
        this.ringBytes -= oldest.bytes;
        oldest.bytes = Buffer.byteLength(formatEvent(oldest.t, oldest.code, oldest.data));
        this.ringBytes += oldest.bytes;
        if (this.ringBytes > this.tailBytes) continue;
        break;
      }
      this.ringBytes -= this.ring.shift()!.bytes;
    }
  }

  private flushTail(): void {
    if (this.mode !== 'tail' || this.ring.length === 0) return;
    this.append(formatEvent(this.ring[0]!.t, 'm', 'recording-tail'));
    for (const e of this.ring.splice(0)) this.append(formatEvent(e.t, e.code, e.data));
    this.ringBytes = 0;
  }

  /**
   * Events gather for FLUSH_MS (or BATCH_BYTES) and go to the file in one
   * write: a flood wrote one line per PTY read, and those writes were a
   * third of `nightshift run`'s time. So a kill -9 loses at most the last
   * 10 ms of events (256 KB at most); close(), suspend() and a cap's tail
   * write everything out. A short write on a full disk is cut back to the
   * end of the last whole batch, so the file still parses.
   */
  private append(text: string | Buffer): void {
    if (this.fd === undefined || this.mode === 'off') return;
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    this.bytes += buf.length;
    if (this.pendingBytes >= BATCH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.fd === undefined || this.pending.length === 0) return;
    const batch = this.pending;
    const size = this.pendingBytes;
    const before = this.bytes - size;
    this.pending = [];
    this.pendingBytes = 0;
    try {
      writeAll(this.fd, batch, size);
    } catch (e) {
      this.mode = 'off';
      this.bytes = before;
      try {
        ftruncateSync(this.fd, before);
      } catch {
        // Nothing more to save: the file holds what it holds.
      }
      this.opts.onProblem?.(e as Error);
    }
    // Nothing pending refers to the arena any more: its lines may be written over.
    this.arenaLen = 0;
  }
}

/** A flood's events gather this long, or this big, before one write (see append). */
const FLUSH_MS = 10;
const BATCH_BYTES = 256 * 1024;
/** Room for a batch of escaped lines and one more at its worst (a PTY thread's batch is at most 256 KB). */
const ARENA_BYTES = 2 * 1024 * 1024;

interface TailEvent {
  /** Microseconds from the start. */
  readonly t: number;
  readonly code: string;
  data: string;
  bytes: number;
}

/** JSON.stringify escapes control chars and lone surrogates, so any JS string round-trips. */
function formatEvent(micros: number, code: string, data: string): string {
  return `[${(micros / 1e6).toFixed(6)}, ${JSON.stringify(code)}, ${JSON.stringify(data)}]\n`;
}

function checkSize(name: string, v: number): void {
  if (!Number.isInteger(v) || v <= 0) {
    throw new RangeError(`cast ${name} must be a positive integer, got ${v}`);
  }
}

/** The buffers in one system call (writev); a short write (rare, but legal, and past IOV_MAX buffers) is finished before returning. */
function writeAll(fd: number, bufs: Buffer[], size: number): void {
  const done = bufs.length === 1 ? writeSync(fd, bufs[0]!) : writevSync(fd, bufs);
  if (done >= size) return;
  const rest = Buffer.concat(bufs, size);
  for (let off = done; off < size; ) off += writeSync(fd, rest, off, size - off);
}
