/**
 * The control protocol between the CLI and the daemon: newline-delimited
 * JSON over a Unix socket. Every message carries the protocol version; a
 * client and daemon that disagree refuse each other with a clear message.
 *   request   {"v":1,"id":7,"cmd":"submit","args":{…}}
 *   reply     {"v":1,"id":7,"ok":true,"result":…} | {"v":1,"id":7,"ok":false,"error":{…}}
 *   stream    {"v":1,"id":7,"data":"…"} … then a reply ends it (attach, logs -f)
 *   input     {"v":1,"id":7,"input":"…"} from the client into an open stream (attach)
 */
export const PROTOCOL_VERSION = 1;

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

/** Splits a byte stream into JSON messages; a malformed line is reported, not thrown. */
export class LineDecoder {
  private buf = '';

  push(chunk: string, onMessage: (m: Message) => void, onBad: (line: string) => void): void {
    this.buf += chunk;
    for (let nl = this.buf.indexOf('\n'); nl !== -1; nl = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (!line.trim()) continue;
      try {
        onMessage(JSON.parse(line) as Message);
      } catch {
        onBad(line);
      }
    }
  }
}

export const encode = (m: Message): string => `${JSON.stringify(m)}\n`;
