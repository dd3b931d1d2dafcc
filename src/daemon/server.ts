/**
 * The daemon's side of the control socket: every line a client sends gets
 * a reply (a result, or an error for anything that is not a valid request),
 * a line over MAX_LINE_BYTES ends the connection, and at most
 * MAX_CONNECTIONS clients are served at once: no client can hang the
 * daemon's memory or its accept loop.
 */
import { chmodSync, renameSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { InputError } from '../util/errors.js';
import { within } from '../util/within.js';
import type { CallContext, CommandRunner } from '../api/command.js';
import { encode, LineDecoder, MAX_LINE_BYTES, parseIncoming, PROTOCOL_VERSION, type ErrorBody, type Message, type Request } from '../api/protocol.js';

export const MAX_CONNECTIONS = 64;

/** How long a refused client gets to read its error before the socket is destroyed. */
const LINGER_MS = 1_000;
/** At close, how long requests being answered, then their replies' delivery, are waited for. */
const CLOSE_MS = 2_000;

/** Per connection: streams open on it (by request id) and what to run when it closes. */
interface Conn {
  readonly socket: Socket;
  readonly inputs: Map<number, (d: string) => void>;
  readonly closers: Set<() => void>;
}

export class ControlServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private path: string | undefined;
  private closing = false;
  /** Requests being answered; a stream (attach, follow) leaves this set once it streams, as it has no end to wait for. */
  private readonly answering = new Set<Promise<void>>();

  constructor(
    private readonly commands: CommandRunner,
    private readonly onError: (e: unknown) => void,
    private readonly limits = { maxLineBytes: MAX_LINE_BYTES, maxConnections: MAX_CONNECTIONS },
  ) {}

  /** Binds under a temporary name, sets 0600, then renames into place: never a moment of wider access. */
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

  /**
   * Requests already read are answered (bounded), and no new one is read:
   * a caller whose connection closes unanswered knows its request never ran,
   * and may try the next daemon (client.ts).
   */
  async close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await within(CLOSE_MS, Promise.all(this.answering));
    const gone = [...this.sockets].map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve()))));
    for (const s of this.sockets) s.end();
    await within(CLOSE_MS, Promise.all(gone));
    for (const s of this.sockets) s.destroy();
    await closed;
    // Node unlinks the name it bound (the temporary one), not the renamed socket.
    if (this.path) rmSync(this.path, { force: true });
  }

  private accept(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (this.sockets.size >= this.limits.maxConnections) {
      return refuse(socket, `too many connections to the daemon (${this.limits.maxConnections} open); try again when one closes`);
    }
    this.sockets.add(socket);
    const conn: Conn = { socket, inputs: new Map(), closers: new Set() };
    socket.on('close', () => {
      this.sockets.delete(socket);
      for (const c of conn.closers) c();
    });
    const decoder = new LineDecoder(this.limits.maxLineBytes);
    socket.on('data', (chunk: Buffer) => {
      if (decoder.overflow) return;
      for (const line of decoder.push(chunk)) this.route(conn, line);
      if (decoder.overflow) refuse(socket, `message too long: no newline within ${this.limits.maxLineBytes} bytes; closing the connection`);
    });
  }

  private route(conn: Conn, line: string): void {
    if (this.closing) return;
    const parsed = parseIncoming(line);
    if (!parsed.ok) return reply(conn.socket, parsed.id, parsed.error);
    const m = parsed.message;
    if (!('input' in m)) return this.call(conn, m);
    const into = conn.inputs.get(m.id);
    // Input needs no reply while its stream is open; input to no stream is a mistake worth saying.
    if (!into) return reply(conn.socket, m.id, { message: `no open stream with id ${m.id} to send input to`, kind: 'input' });
    into(m.input);
  }

  private call(conn: Conn, req: Request): void {
    let streams = false;
    let answer: Promise<void> | undefined;
    answer = this.answer(conn, req, () => {
      streams = true;
      if (answer) this.answering.delete(answer);
    });
    if (!streams) this.answering.add(answer);
    void answer.finally(() => this.answering.delete(answer!));
  }

  private async answer(conn: Conn, req: Request, streaming: () => void): Promise<void> {
    const { socket } = conn;
    const ctx: CallContext = {
      stream: (data) => {
        streaming();
        write(socket, { v: PROTOCOL_VERSION, id: req.id, data });
      },
      onInput: (cb) => {
        streaming();
        conn.inputs.set(req.id, cb);
      },
      onClose: (cb) => conn.closers.add(cb),
      get closed() {
        return socket.destroyed;
      },
    };
    try {
      const result = await this.commands.run(req.cmd, req.args, ctx);
      write(socket, { v: PROTOCOL_VERSION, id: req.id, ok: true, result: result ?? null });
    } catch (e) {
      if (!(e instanceof InputError)) this.onError(e);
      reply(socket, req.id, errorBody(e));
    } finally {
      conn.inputs.delete(req.id);
    }
  }
}

function write(socket: Socket, m: Message): void {
  if (!socket.destroyed && socket.writable) socket.write(encode(m));
}

function reply(socket: Socket, id: number, error: ErrorBody): void {
  write(socket, { v: PROTOCOL_VERSION, id, ok: false, error });
}

/** Says why, half-closes, and drops whatever else arrives; destroyed soon after so a silent peer cannot hold it. */
function refuse(socket: Socket, message: string): void {
  reply(socket, 0, { message, kind: 'input' });
  socket.end();
  socket.on('data', () => undefined);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

function errorBody(e: unknown): ErrorBody {
  if (e instanceof InputError) {
    return { message: e.message, kind: 'input', ...(e.file ? { file: e.file } : {}), ...(e.line ? { line: e.line } : {}) };
  }
  return { message: e instanceof Error ? e.message : String(e), kind: 'internal' };
}
