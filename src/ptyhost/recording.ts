/**
 * The host's own copy of a job's output, so output printed while no daemon
 * is connected is on disk. The file is asciicast v2: a header line, then
 * `[seconds, "o", text]` events stamped with the host's clock when it read
 * the chunk, `[seconds, "r", "COLSxROWS"]` on resize, and a last
 * `[seconds, "m", "exit:CODE"]` marker when the job ends (128 + the signal for a signal).
 * Text is decoded as UTF-8 across chunk boundaries (a character split between
 * two reads is written whole, in the later event); bytes that are not UTF-8
 * become U+FFFD, as in every asciicast file.
 *
 * Output that comes within 10 ms (or 256 KB) is one event, stamped when its
 * first chunk was read (the host's thread gathers the window; an event never
 * holds two), and what gathered goes to the file in one synchronous
 * append, so the file only ever ends in whole lines and a kill -9 of the
 * host loses at most those 10 ms. Output is escaped from bytes to bytes
 * (json-bytes.ts) into one reused buffer as it comes: no string, no fresh
 * buffer per event, so a flood costs the recording one pass over its bytes.
 */
import { closeSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { JsonUtf8Escaper, maxEscapedBytes } from '../record/json-bytes.js';
import { InputError } from '../util/errors.js';
import { formatSize } from '../util/size.js';

/** A flood is read 4 KB at a time; gathering 10 ms of it makes one event and one write instead of ~100. */
const FLUSH_MS = 10;
const BATCH_BYTES = 256 * 1024;
/** Output is escaped this much at a time, so the reused buffer never needs room for a whole batch escaped at its worst (6x). */
const SLICE_BYTES = 16 * 1024;
/** Room for a batch, a slice escaped at its worst, and an event's `[t,"o","` and `"]\n`. */
const OUT_BYTES = BATCH_BYTES + maxEscapedBytes(SLICE_BYTES) + 64;

export type CastHeader = { width: number; height: number; command: string } & Record<string, unknown>;

export class CastAppender {
  private readonly escaper = new JsonUtf8Escaper();
  /** Lines not yet written, encoded; allocated with the first event and reused for every write. */
  private out: Buffer | undefined;
  private outLen = 0;
  /** Where the output event still open at the end of `out` begins (-1: none), where its text begins, and its time. */
  private openAt = -1;
  private textAt = 0;
  private openT = 0;
  private timer: NodeJS.Timeout | undefined;
  private fd: number | undefined;
  private closes = true;
  private failure: Error | undefined;
  private written = 0;
  /** 'capped': past the cap, output goes to the tail and only markers to the file; 'off': suspended by the client. */
  private mode: 'on' | 'capped' | 'off' = 'on';
  /** Past the cap, the newest output (at most tailBytes), written after a `recording-tail` marker at close. */
  private tail: Buffer[] = [];
  private tailSize = 0;
  private readonly tailBytes: number;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly startMs: number,
    private readonly cap: number,
    private readonly onProblem: (e: Error) => void,
  ) {
    this.fd = fd;
    // The same share as the daemon's own recordings (CastWriter): the end of the story is kept.
    this.tailBytes = Number.isFinite(cap) ? Math.floor(cap * 0.05) : 0;
  }

  /**
   * A new file, or an empty one: the host writes the header and every event, so it refuses a file with a story in it.
   * Synchronous, so a bad path fails the spawn. Returns the fd for adopt().
   */
  static create(path: string, header: CastHeader, startMs: number): { fd: number; written: number } {
    let fd: number;
    try {
      fd = openSync(path, 'a', 0o600);
    } catch (e) {
      throw new InputError(`cannot open recording ${JSON.stringify(path)}: ${(e as Error).message}`);
    }
    if (statSync(path).size > 0) {
      closeSync(fd);
      throw new InputError(`recording ${JSON.stringify(path)} is not empty; the host writes its own header, give it a new file`);
    }
    const line = Buffer.from(`${JSON.stringify({ version: 2, ...header, timestamp: Math.floor(startMs / 1000) })}\n`);
    try {
      for (let done = 0; done < line.length; ) done += writeSync(fd, line, done);
    } catch (e) {
      closeSync(fd);
      throw new InputError(`cannot write recording ${JSON.stringify(path)}: ${(e as Error).message}`);
    }
    return { fd, written: line.length };
  }

  /**
   * The events of a file create() began (here or in another thread of the process: an fd is the
   * process's). `closes: false` leaves the fd open when done, for the thread that opened it to close
   * (Node warns when a thread closes an fd another opened).
   */
  static adopt(path: string, fd: number, written: number, startMs: number, cap = Infinity, onProblem: (e: Error) => void = () => undefined, closes = true): CastAppender {
    const rec = new CastAppender(path, fd, startMs, cap, onProblem);
    rec.written = written;
    rec.closes = closes;
    return rec;
  }

  /** Why writing stopped (a full disk), if it did; the job goes on regardless. */
  get problem(): Error | undefined {
    return this.failure;
  }

  /**
   * Output within one FLUSH_MS window becomes one event, stamped when its first chunk came.
   * `data` is escaped before this returns: the caller may reuse its buffer.
   */
  output(data: Uint8Array, nowMs: number): void {
    if (this.mode === 'capped') return this.keepTail(data);
    if (this.mode !== 'on') return;
    // A batch read later is an event of its own: an event never stretches past the window it was gathered in.
    if (this.openAt >= 0 && this.seconds(nowMs) !== this.openT) this.closeOutput();
    for (let at = 0; at < data.length; at += SLICE_BYTES) {
      const slice = data.subarray(at, at + SLICE_BYTES);
      if (this.openAt < 0) this.openOutput(nowMs);
      if (this.written + this.outLen + maxEscapedBytes(slice.length) + 3 > this.limit) return this.capAt(data.subarray(at));
      this.outLen = this.escaper.write(slice, this.out!, this.outLen);
      if (this.outLen >= BATCH_BYTES) this.flush();
    }
    this.schedule();
  }

  resize(cols: number, rows: number, nowMs: number): void {
    this.event(nowMs, 'r', `${cols}x${rows}`);
  }

  input(data: string, nowMs: number): void {
    if (this.mode === 'on') this.event(nowMs, 'i', data);
  }

  marker(label: string, nowMs: number): void {
    this.event(nowMs, 'm', label);
  }

  /** Nothing more reaches the file, not even the exit marker (the client writes its own word on why). */
  suspend(): void {
    this.flush();
    this.mode = 'off';
  }

  /** Writes what is left (a dangling partial character, the marker if any) and closes the file. */
  close(marker: string | null, nowMs: number): void {
    if (this.mode === 'off') return this.closeFd();
    if (this.escaper.holding) {
      if (this.openAt < 0) this.openOutput(nowMs);
      this.outLen = this.escaper.end(this.out!, this.outLen);
    }
    this.closeOutput();
    if (this.mode === 'capped' && this.tailSize > 0) {
      this.pushLine(nowMs, 'm', 'recording-tail');
      // Cut from the front of a ring: a character split there comes out as U+FFFD.
      this.pushLine(nowMs, 'o', Buffer.concat(this.tail).toString('utf8'));
    }
    if (marker !== null) this.pushLine(nowMs, 'm', marker);
    this.flush();
    this.closeFd();
  }

  private closeFd(): void {
    if (this.fd !== undefined && this.closes) closeSync(this.fd);
    this.fd = undefined;
  }

  private event(nowMs: number, code: string, data: string): void {
    if (this.mode === 'off') return;
    this.closeOutput();
    this.pushLine(nowMs, code, data);
    this.schedule();
  }

  /** Where output stops going to the file: the cap less the tail's share. */
  private get limit(): number {
    return this.tailBytes > 0 ? this.cap - this.tailBytes : Infinity;
  }

  private seconds(atMs: number): number {
    return Number(Math.max(0, (atMs - this.startMs) / 1000).toFixed(6));
  }

  /** Begins an output event at the end of `out`: `[t,"o","`, as JSON.stringify writes it. */
  private openOutput(nowMs: number): void {
    this.out ??= Buffer.allocUnsafe(OUT_BYTES);
    this.openT = this.seconds(nowMs);
    this.openAt = this.outLen;
    this.outLen += this.out.write(`[${this.openT},"o","`, this.outLen, 'latin1');
    this.textAt = this.outLen;
  }

  /** Ends the open output event; one with no text yet (a character still split) is taken back. */
  private closeOutput(): void {
    if (this.openAt < 0) return;
    if (this.outLen === this.textAt) this.outLen = this.openAt;
    else this.outLen += this.out!.write('"]\n', this.outLen, 'latin1');
    this.openAt = -1;
  }

  /** An event from a string (resizes, input, markers, the tail). */
  private pushLine(atMs: number, code: string, data: string): void {
    const line = `${JSON.stringify([this.seconds(atMs), code, data])}\n`;
    this.out ??= Buffer.allocUnsafe(OUT_BYTES);
    // A long line (a big paste, the tail) is written as it is; the usual one fits the reused buffer.
    if (this.outLen + 3 * line.length > this.out.length) this.flush();
    if (3 * line.length > this.out.length) return this.writeOut(Buffer.from(line));
    this.outLen += this.out.write(line, this.outLen, 'utf8');
  }

  /** Output from here goes to the tail; the file says so once. What still fits goes in first. */
  private capAt(data: Uint8Array): void {
    const room = Math.max(0, Math.floor((this.limit - this.written - this.outLen - 64) / 6));
    this.outLen = this.escaper.write(data.subarray(0, room), this.out!, this.outLen);
    // A character cut by the cap comes out as U+FFFD, as the tail's first one may.
    this.outLen = this.escaper.end(this.out!, this.outLen);
    const t = this.openT;
    this.closeOutput();
    this.mode = 'capped';
    const note = `recording-cap:${formatSize(this.cap)}: output dropped from here; the last ${formatSize(this.tailBytes)} follow the recording-tail marker`;
    this.pushLine(this.startMs + t * 1000, 'm', note);
    this.keepTail(data.subarray(room));
  }

  /** Keeps a copy: the caller's buffer is reused. */
  private keepTail(data: Uint8Array): void {
    if (data.length === 0) return;
    this.tail.push(Buffer.from(data.subarray(Math.max(0, data.length - this.tailBytes))));
    this.tailSize += Math.min(data.length, this.tailBytes);
    while (this.tailSize > this.tailBytes) {
      const first = this.tail[0]!;
      const excess = this.tailSize - this.tailBytes;
      if (first.length > excess) {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
      } else {
        this.tail.shift();
        this.tailSize -= first.length;
      }
    }
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.closeOutput();
    if (this.outLen === 0) return;
    const len = this.outLen;
    this.outLen = 0;
    this.writeOut(this.out!.subarray(0, len));
  }

  private writeOut(batch: Buffer): void {
    if (this.fd === undefined) return;
    this.written += batch.length;
    try {
      // A regular file takes it all in one write; the loop is for the rare short write.
      for (let done = 0; done < batch.length; ) done += writeSync(this.fd, batch, done);
    } catch (e) {
      // A short write (a full disk) leaves a torn line: cut the file back to its last whole event, so it still parses, and stop.
      this.failure = e as Error;
      try {
        ftruncateSync(this.fd, this.written - batch.length);
      } catch {
        // Nothing more to save: the file holds what it holds.
      }
      this.closeFd();
      this.onProblem(e as Error);
    }
  }
}
