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
 * first chunk came, and what gathered goes to the file in one synchronous
 * append, so the file only ever ends in whole lines and a kill -9 of the
 * host loses at most those 10 ms.
 */
import { closeSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../util/errors.js';
import { formatSize } from '../util/size.js';

/** A flood is read 4 KB at a time; gathering 10 ms of it makes one event and one write instead of ~100. */
const FLUSH_MS = 10;
const BATCH_BYTES = 256 * 1024;

export type CastHeader = { width: number; height: number; command: string } & Record<string, unknown>;

export class CastAppender {
  private readonly decoder = new StringDecoder('utf8');
  /** Events encoded, each once: their sizes come free, where Buffer.byteLength of each line cost as much as encoding it (a 200 MB flood: 250 ms of the recording's thread). */
  private pending: Buffer[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Output not yet made an event: its chunks, their size, and when the first came. */
  private outputChunks: Buffer[] = [];
  private outputBytes = 0;
  private outputAt: number | undefined;
  private fd: number | undefined;
  private failure: Error | undefined;
  private written = 0;
  /** Bytes in `pending`. */
  private pendingBytes = 0;
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

  /** The events of a file create() began (here or in another thread of the process: an fd is the process's). */
  static adopt(path: string, fd: number, written: number, startMs: number, cap = Infinity, onProblem: (e: Error) => void = () => undefined): CastAppender {
    const rec = new CastAppender(path, fd, startMs, cap, onProblem);
    rec.written = written;
    return rec;
  }

  /** Why writing stopped (a full disk), if it did; the job goes on regardless. */
  get problem(): Error | undefined {
    return this.failure;
  }

  /** Output within one FLUSH_MS window becomes one event, stamped when its first chunk came. */
  output(data: Buffer, nowMs: number): void {
    if (this.mode === 'capped') return this.keepTail(data);
    if (this.mode !== 'on') return;
    this.outputAt ??= nowMs;
    this.outputChunks.push(data);
    this.outputBytes += data.length;
    if (this.outputBytes >= BATCH_BYTES) return this.flush();
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
    this.takeOutput();
    if (this.mode === 'capped' && this.tailSize > 0) {
      this.pushEvent(nowMs, 'm', 'recording-tail');
      // Cut from the front of a ring: a character split there comes out as U+FFFD.
      this.pushEvent(nowMs, 'o', Buffer.concat(this.tail).toString('utf8'));
    }
    const rest = this.decoder.end();
    if (rest !== '') this.pushEvent(nowMs, 'o', rest);
    if (marker !== null) this.pushEvent(nowMs, 'm', marker);
    this.flush();
    this.closeFd();
  }

  private closeFd(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private event(nowMs: number, code: string, data: string): void {
    if (this.mode === 'off') return;
    this.takeOutput();
    this.pushEvent(nowMs, code, data);
    this.schedule();
  }

  /** Output gathered so far becomes its event, ahead of whatever event comes next. */
  private takeOutput(): void {
    if (this.outputAt === undefined) return;
    const data = this.outputChunks.length === 1 ? this.outputChunks[0]! : Buffer.concat(this.outputChunks);
    const text = this.decoder.write(data);
    if (text !== '') this.pushEvent(this.outputAt, 'o', text);
    this.outputAt = undefined;
    this.outputChunks = [];
    this.outputBytes = 0;
  }

  private pushEvent(atMs: number, code: string, data: string): void {
    const t = Math.max(0, (atMs - this.startMs) / 1000);
    const line = eventLine(t, code, data);
    if (this.tailBytes > 0 && this.mode === 'on' && code === 'o' && this.written + this.pendingBytes + line.length > this.cap - this.tailBytes) return this.capAt(t, data);
    this.add(line);
  }

  /** Output from here goes to the tail; the file says so once. */
  private capAt(t: number, data: string): void {
    // What still fits goes in (half the room in characters: escapes like \r\n double in JSON).
    const room = Math.floor((this.cap - this.tailBytes - this.written - this.pendingBytes - 64) / 2);
    if (room > 0) this.add(eventLine(t, 'o', data.slice(0, room)));
    if (room > 0) data = data.slice(room);
    this.mode = 'capped';
    const note = `recording-cap:${formatSize(this.cap)}: output dropped from here; the last ${formatSize(this.tailBytes)} follow the recording-tail marker`;
    this.add(eventLine(t, 'm', note));
    this.keepTail(Buffer.from(data));
  }

  private add(line: Buffer): void {
    this.pending.push(line);
    this.pendingBytes += line.length;
  }

  private keepTail(data: Buffer): void {
    this.tail.push(data);
    this.tailSize += data.length;
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
    this.takeOutput();
    if (this.pending.length === 0 || this.fd === undefined) return;
    const batch = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.written += batch.length;
    this.pendingBytes = 0;
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
      closeSync(this.fd);
      this.fd = undefined;
      this.onProblem(e as Error);
    }
  }
}

/** One asciicast event, encoded: `[t, code, data]` and a line end. */
function eventLine(t: number, code: string, data: string): Buffer {
  return Buffer.from(`${JSON.stringify([Number(t.toFixed(6)), code, data])}\n`);
}
