/** The daemon's side of the control socket: one request → one handler → one reply (plus streamed data). */
import { chmodSync, renameSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { InputError } from '../util/errors.js';
import { encode, LineDecoder, PROTOCOL_VERSION, type ErrorBody, type Message, type Request } from './protocol.js';

export interface CallContext {
  /** Sends a chunk of a streamed result (attach, logs -f). */
  stream(data: string): void;
  /** Input the client sends into an open stream (attach). */
  onInput(cb: (data: string) => void): void;
  /** The client went away. */
  onClose(cb: () => void): void;
  readonly closed: boolean;
}

export type Handler = (args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>;

export class ControlServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly handlers: Readonly<Record<string, Handler>>,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Binds under a temporary name, sets 0600, then renames into place: never a moment of wider access. */
  private path: string | undefined;

  async listen(path: string): Promise<void> {
    const tmp = `${path}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    const server = createServer((s) => this.accept(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(tmp, () => resolve());
    });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
    this.server = server;
    this.path = path;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    // Node unlinks the name it bound (the temporary one), not the renamed socket.
    if (this.path) rmSync(this.path, { force: true });
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setEncoding('utf8');
    const decoder = new LineDecoder();
    const inputs = new Map<number, (d: string) => void>();
    const closers = new Set<() => void>();
    socket.on('close', () => {
      this.sockets.delete(socket);
      for (const c of closers) c();
    });
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) =>
      decoder.push(
        chunk,
        (m) => this.route(socket, m, inputs, closers),
        () => this.reply(socket, 0, { message: 'malformed message (not JSON)', kind: 'input' }),
      ),
    );
  }

  private route(socket: Socket, m: Message, inputs: Map<number, (d: string) => void>, closers: Set<() => void>): void {
    if ('input' in m) {
      inputs.get(m.id)?.(m.input);
      return;
    }
    if (!('cmd' in m)) return;
    if (m.v !== PROTOCOL_VERSION) {
      this.reply(socket, m.id, { message: `protocol version ${m.v} not supported; this daemon speaks ${PROTOCOL_VERSION} (restart it after upgrading)`, kind: 'input' });
      return;
    }
    void this.call(socket, m, inputs, closers);
  }

  private async call(socket: Socket, req: Request, inputs: Map<number, (d: string) => void>, closers: Set<() => void>): Promise<void> {
    const handler = this.handlers[req.cmd];
    if (!handler) {
      this.reply(socket, req.id, { message: `unknown command "${req.cmd}"`, kind: 'input' });
      return;
    }
    const ctx: CallContext = {
      stream: (data) => write(socket, { v: PROTOCOL_VERSION, id: req.id, data }),
      onInput: (cb) => inputs.set(req.id, cb),
      onClose: (cb) => closers.add(cb),
      get closed() {
        return socket.destroyed;
      },
    };
    try {
      const result = await handler(req.args ?? {}, ctx);
      write(socket, { v: PROTOCOL_VERSION, id: req.id, ok: true, result: result ?? null });
    } catch (e) {
      if (!(e instanceof InputError)) this.onError(e);
      this.reply(socket, req.id, errorBody(e));
    } finally {
      inputs.delete(req.id);
    }
  }

  private reply(socket: Socket, id: number, error: ErrorBody): void {
    write(socket, { v: PROTOCOL_VERSION, id, ok: false, error });
  }
}

function write(socket: Socket, m: Message): void {
  if (!socket.destroyed) socket.write(encode(m));
}

function errorBody(e: unknown): ErrorBody {
  if (e instanceof InputError) {
    return { message: e.message, kind: 'input', ...(e.file ? { file: e.file } : {}), ...(e.line ? { line: e.line } : {}) };
  }
  return { message: e instanceof Error ? e.message : String(e), kind: 'internal' };
}
