import { closeSync, openSync, writeSync } from 'node:fs';
import { InputError } from '../util/errors.js';

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
 */
export class CastWriter {
  private fd: number | undefined;
  /** Last written time in whole microseconds; times are clamped to never go back. */
  private lastMicros = 0;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly startMs: number,
  ) {
    this.fd = fd;
  }

  static open(path: string, header: CastWriterHeader, startMs: number): CastWriter {
    checkSize('width', header.width);
    checkSize('height', header.height);
    let fd: number;
    try {
      fd = openSync(path, 'w');
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
    try {
      writeAll(fd, `${line}\n`);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new CastWriter(path, fd, startMs);
  }

  get closed(): boolean {
    return this.fd === undefined;
  }

  output(tMs: number, data: string): void {
    this.event(tMs, 'o', data);
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
    this.marker(tMs, `exit:${code}`);
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private event(tMs: number, code: string, data: string): void {
    if (this.fd === undefined) return;
    const micros = Math.round((tMs - this.startMs) * 1000);
    // A caller clock that steps back (NTP, a restarted drill) must not break v2's ordering.
    if (Number.isFinite(micros) && micros > this.lastMicros) this.lastMicros = micros;
    const t = (this.lastMicros / 1e6).toFixed(6);
    // JSON.stringify escapes control chars and lone surrogates, so any JS string round-trips.
    writeAll(this.fd, `[${t}, ${JSON.stringify(code)}, ${JSON.stringify(data)}]\n`);
  }
}

function checkSize(name: string, v: number): void {
  if (!Number.isInteger(v) || v <= 0) {
    throw new RangeError(`cast ${name} must be a positive integer, got ${v}`);
  }
}

/** One line, one buffer: a short write (rare, but legal) is finished before returning. */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}
