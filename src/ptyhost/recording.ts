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
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../util/errors.js';

/** A flood is read 4 KB at a time; gathering 10 ms of it makes one event and one write instead of ~100. */
const FLUSH_MS = 10;
const BATCH_BYTES = 256 * 1024;

export class CastAppender {
  private readonly decoder = new StringDecoder('utf8');
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Output not yet made an event: its chunks, their size, and when the first came. */
  private outputChunks: Buffer[] = [];
  private outputBytes = 0;
  private outputAt: number | undefined;
  private fd: number | undefined;
  private failure: Error | undefined;
  private written = 0;
  /** 'capped': past the cap, only markers; 'off': suspended by the client, nothing more. */
  private mode: 'on' | 'capped' | 'off' = 'on';

  private constructor(
    readonly path: string,
    fd: number,
    private readonly startMs: number,
    private readonly cap: number,
  ) {
    this.fd = fd;
  }

  /** A new file, or an empty one: the host writes the header and every event, so it refuses a file with a story in it. */
  static open(path: string, header: { width: number; height: number; command: string } & Record<string, unknown>, startMs: number, cap = Infinity): CastAppender {
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
    const rec = new CastAppender(path, fd, startMs, cap);
    rec.pending.push(`${JSON.stringify({ version: 2, ...header, timestamp: Math.floor(startMs / 1000) })}\n`);
    rec.flush();
    return rec;
  }

  /** Why writing stopped (a full disk), if it did; the job goes on regardless. */
  get problem(): Error | undefined {
    return this.failure;
  }

  /** Output within one FLUSH_MS window becomes one event, stamped when its first chunk came. */
  output(data: Buffer, nowMs: number): void {
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

  /** Writes what is left (a dangling partial character, the marker) and closes the file. */
  close(marker: string, nowMs: number): void {
    if (this.mode === 'off') return this.closeFd();
    this.takeOutput();
    const rest = this.decoder.end();
    if (rest !== '') this.pushEvent(nowMs, 'o', rest);
    this.pushEvent(nowMs, 'm', marker);
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
    this.pending.push(`${JSON.stringify([Number(t.toFixed(6)), code, data])}\n`);
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.takeOutput();
    if (this.pending.length === 0 || this.fd === undefined) return;
    const batch = Buffer.from(this.pending.join(''));
    this.pending = [];
    this.written += batch.length;
    // Past the cap the story so far stays whole; the markers (input, exit) still go, output does not.
    if (this.mode === 'on' && this.written >= this.cap) {
      this.mode = 'capped';
      this.pending.push(`${JSON.stringify([Number(Math.max(0, (Date.now() - this.startMs) / 1000).toFixed(6)), 'm', `recording-cap:${this.cap} bytes reached, output no longer recorded`])}\n`);
    }
    try {
      // A regular file takes it all in one write; the loop is for the rare short write.
      for (let done = 0; done < batch.length; ) done += writeSync(this.fd, batch, done);
    } catch (e) {
      // A short or failed write leaves the file as it was plus maybe a torn line; stop rather than add to it.
      this.failure = e as Error;
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
