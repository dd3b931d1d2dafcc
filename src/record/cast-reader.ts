import { createReadStream } from 'node:fs';
import { InputError } from '../util/errors.js';
import type { Cast, CastEvent, CastHeader } from './asciicast.js';

/**
 * Times are kept in whole microseconds while parsing: v3 intervals then sum
 * without float drift, and a v2 file and its v3 twin give identical numbers.
 */
const MICROS = 1e6;

/** Parses a whole asciicast (v2 or v3) held in memory. */
export function parseCast(text: string, file: string): Cast {
  const parser = new CastParser(file);
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  while (start < text.length) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    parser.line(text.slice(start, nl), ++lineNo);
    start = nl + 1;
  }
  return parser.finish();
}

/** Streams a cast file from disk, so the text and the events never coexist whole. */
export async function readCast(path: string): Promise<Cast> {
  const parser = new CastParser(path);
  await readLines(path, parser);
  return parser.finish();
}

/**
 * Feeds `parser` the file's lines, a read chunk (1 MB) at a time; `chunkRead`
 * runs after each chunk's lines (a reader handing events on, waiting for room).
 */
export async function readLines(path: string, parser: CastParser, chunkRead?: () => Promise<void> | undefined): Promise<void> {
  // Bytes, each line decoded alone (a line feed is never inside a UTF-8 sequence): a stream decoder
  // and one string per chunk, then sliced, cost twice the time for the same strings.
  let carry: Buffer | undefined;
  let lineNo = 0;
  const line = (text: string) => parser.line(lineNo === 0 ? stripBom(text) : text, ++lineNo);
  try {
    const stream = createReadStream(path, { highWaterMark: 1 << 20 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      let nl = chunk.indexOf(LF);
      if (carry !== undefined) {
        if (nl === -1) {
          carry = Buffer.concat([carry, chunk]);
          continue;
        }
        line(Buffer.concat([carry, chunk.subarray(0, nl)]).toString('utf8'));
        carry = undefined;
        start = nl + 1;
        nl = chunk.indexOf(LF, start);
      }
      for (; nl !== -1; nl = chunk.indexOf(LF, start)) {
        line(chunk.toString('utf8', start, nl));
        start = nl + 1;
      }
      if (start < chunk.length) carry = chunk.subarray(start);
      const room = chunkRead?.();
      if (room) await room;
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read asciicast file ${path}: ${(e as Error).message}`, { cause: e });
  }
  if (carry !== undefined) line(carry.toString('utf8'));
}

const LF = 0x0a;

function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/** Line-at-a-time parser shared by the in-memory and streaming entry points. */
export class CastParser {
  private head: CastHeader | undefined;
  private events: CastEvent[] = [];
  private micros = 0;
  /** v2 only: the previous raw time, so the error quotes what the file says. */
  private prevTime = 0;

  constructor(private readonly file: string) {}

  /** The header once its line was read. */
  get header(): CastHeader | undefined {
    return this.head;
  }

  line(raw: string, lineNo: number): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    if (this.head === undefined) {
      this.head = this.parseHeader(text, lineNo);
      return;
    }
    if (this.head.version === 3 && text.startsWith('#')) return;
    this.events.push(this.parseEvent(text, lineNo, this.head.version));
  }

  /** The events parsed since the last take (a reader handing them on in batches). */
  take(): CastEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  finish(): Cast {
    if (this.head === undefined) {
      throw this.fail('empty file: expected an asciicast header line', 1);
    }
    return { header: this.head, events: this.events };
  }

  private fail(message: string, line: number, cause?: unknown): InputError {
    return new InputError(message, { file: this.file, line, cause });
  }

  private parseHeader(text: string, lineNo: number): CastHeader {
    if (text.startsWith('#')) {
      throw this.fail('expected the asciicast header (a JSON object), got a comment', lineNo);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw this.fail(`header is not valid JSON: ${(e as Error).message}`, lineNo, e);
    }
    if (!isPlainObject(value)) {
      throw this.fail(`expected the asciicast header (a JSON object), got ${describe(value)}`, lineNo);
    }
    const version = value['version'];
    if (version === 2) return this.headerV2(value, lineNo);
    if (version === 3) return this.headerV3(value, lineNo);
    if (version === undefined) throw this.fail('header has no "version" (expected 2 or 3)', lineNo);
    throw this.fail(`unsupported asciicast version ${JSON.stringify(version)} (expected 2 or 3)`, lineNo);
  }

  private headerV2(h: Record<string, unknown>, lineNo: number): CastHeader {
    const width = this.positiveInt(h['width'], 'width', lineNo);
    const height = this.positiveInt(h['height'], 'height', lineNo);
    return sanitize({ ...h, version: 2, width, height });
  }

  private headerV3(h: Record<string, unknown>, lineNo: number): CastHeader {
    const term = h['term'];
    if (!isPlainObject(term)) {
      throw this.fail(`v3 header needs "term": {"cols": N, "rows": N}, got ${describe(term)}`, lineNo);
    }
    const width = this.positiveInt(term['cols'], 'term.cols', lineNo);
    const height = this.positiveInt(term['rows'], 'term.rows', lineNo);
    return sanitize({ ...h, version: 3, width, height });
  }

  private positiveInt(v: unknown, name: string, lineNo: number): number {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
    throw this.fail(`header ${name} must be a positive integer, got ${describe(v)}`, lineNo);
  }

  private parseEvent(text: string, lineNo: number, version: 2 | 3): CastEvent {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw this.fail(`invalid JSON: ${(e as Error).message}`, lineNo, e);
    }
    if (!Array.isArray(value) || value.length !== 3) {
      throw this.fail(`expected an event [time, code, data], got ${describe(value)}`, lineNo);
    }
    const [time, code, data] = value as [unknown, unknown, unknown];
    if (typeof time !== 'number' || !Number.isFinite(time) || typeof code !== 'string') {
      throw this.fail(`expected an event [number, string, string], got ${describe(value)}`, lineNo);
    }
    // v3 writes the exit status as a number; everything else carries text.
    const exitNumber = version === 3 && code === 'x' && typeof data === 'number';
    if (typeof data !== 'string' && !exitNumber) {
      throw this.fail(`expected an event [number, string, string], got ${describe(value)}`, lineNo);
    }
    const t = version === 2 ? this.absolute(time, lineNo) : this.interval(time, lineNo);
    return { t, code, data: String(data) };
  }

  private absolute(time: number, lineNo: number): number {
    if (time < 0) throw this.fail(`time ${fmt(time)} is negative`, lineNo);
    if (time < this.prevTime) {
      throw this.fail(`time ${fmt(time)} is before previous ${fmt(this.prevTime)}`, lineNo);
    }
    this.prevTime = time;
    this.micros = Math.round(time * MICROS);
    return this.micros / MICROS;
  }

  private interval(time: number, lineNo: number): number {
    if (time < 0) {
      throw this.fail(`interval ${fmt(time)} is negative (v3 times are intervals since the previous event)`, lineNo);
    }
    this.micros += Math.round(time * MICROS);
    return this.micros / MICROS;
  }
}

/** Drops known optional fields of the wrong type, so the typed view does not lie. */
function sanitize(h: CastHeader): CastHeader {
  if (h.timestamp !== undefined && (typeof h.timestamp !== 'number' || !Number.isFinite(h.timestamp))) {
    delete h.timestamp;
  }
  if (h.command !== undefined && typeof h.command !== 'string') delete h.command;
  if (h.title !== undefined && typeof h.title !== 'string') delete h.title;
  if (h.env !== undefined) {
    if (isPlainObject(h.env)) {
      h.env = Object.fromEntries(Object.entries(h.env).filter(([, v]) => typeof v === 'string'));
    } else {
      delete h.env;
    }
  }
  return h;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `4.0`, not `4`: reads as a time in messages. */
function fmt(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const json = JSON.stringify(v);
  const kind = Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`;
  return `${kind} ${json.length > 60 ? `${json.slice(0, 57)}...` : json}`;
}
