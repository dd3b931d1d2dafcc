/**
 * The control protocol between the CLI and the daemon: newline-delimited
 * JSON over a Unix socket. Every message carries the protocol version; a
 * client and daemon that disagree refuse each other with a clear message.
 *   request   {"v":1,"id":7,"cmd":"submit","args":{…}}
 *   reply     {"v":1,"id":7,"ok":true,"result":…} | {"v":1,"id":7,"ok":false,"error":{…}}
 *   stream    {"v":1,"id":7,"data":"…"} … then a reply ends it (attach, logs -f)
 *   input     {"v":1,"id":7,"input":"…"} from the client into an open stream (attach)
 */
import type { z } from 'zod';

export const PROTOCOL_VERSION = 1;

/** The longest line the daemon reads: a request is small; anything longer is a runaway or an attack. */
export const MAX_LINE_BYTES = 1024 * 1024;

export interface Request {
  v: number;
  id: number;
  cmd: string;
  args: Record<string, unknown>;
}

export interface ErrorBody {
  message: string;
  /** `input`: the request was wrong (CLI exits 2); `internal`: the daemon failed. */
  kind: 'input' | 'internal';
  file?: string;
  line?: number;
}

export type Reply =
  | { v: number; id: number; ok: true; result: unknown }
  | { v: number; id: number; ok: false; error: ErrorBody };

export interface StreamData {
  v: number;
  id: number;
  data: string;
}

export interface StreamInput {
  v: number;
  id: number;
  input: string;
}

export type Message = Request | Reply | StreamData | StreamInput;

/** One line for a person: `path: problem; path: problem`. */
export function issuesText(e: z.ZodError): string {
  return e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}


/**
 * Splits a byte stream into lines. With a cap, a line that grows past it
 * is an overflow: nothing more is kept, so memory stays bounded whatever
 * the peer sends. Buffers, not strings: a newline byte never occurs inside
 * a multi-byte UTF-8 character, and no string is built until a line ends.
 */
export class LineDecoder {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  get overflow(): boolean {
    return this.overflowed;
  }

  /** The complete, non-blank lines in `chunk`; none once the cap was exceeded. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    while (!this.overflowed) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (this.size + end - start > this.maxBytes) {
        this.overflowed = true;
        this.parts = [];
        break;
      }
      this.parts.push(chunk.subarray(start, end));
      this.size += end - start;
      if (nl === -1) break;
      const line = Buffer.concat(this.parts, this.size).toString('utf8');
      this.parts = [];
      this.size = 0;
      if (line.trim()) lines.push(line);
      start = nl + 1;
    }
    return lines;
  }
}

export const encode = (m: Message): string => `${JSON.stringify(m)}\n`;
