/**
 * A typed client of the PTY host (server.ts). `connect` starts the host,
 * detached, when none answers for the state directory, and refuses a host
 * of another version: that host keeps serving the jobs it has.
 */
import { spawn as spawnProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../util/errors.js';
import { FRAME, FrameDecoder, jsonFrame, parseJson, parseOutput, PTYHOST_VERSION, type AttachResult, type ErrorBody, type Frame, type Hello, type JobExit, type JobInfo, type NoteArgs, type RecordingProblem, type Requests, type SpawnArgs, ptyhostSocket } from './protocol.js';

export interface ConnectOptions {
  /** Start a host when none answers (default true). */
  start?: boolean;
  /** How long to keep trying to reach a host we started (default 5 s). */
  timeoutMs?: number;
  /** Extra arguments for a host we start, e.g. ['--idle', '1s'] in tests. */
  hostArgs?: string[];
}

/** The host at the socket speaks another protocol version. */
export class PtyHostVersionError extends Error {
  override name = 'PtyHostVersionError';
  constructor(
    readonly socket: string,
    readonly hostVersion: string,
    readonly hostPid: number,
  ) {
    super(
      `the PTY host at ${socket} (pid ${hostPid}) speaks ${JSON.stringify(hostVersion)}, this nightshift speaks ${JSON.stringify(PTYHOST_VERSION)}; ` +
        'refusing to use it. It keeps serving its jobs and exits by itself once they are done and no client is left',
    );
  }
}

/** The host refused a request (an unknown job, a bad size) or failed it. */
export class PtyHostError extends Error {
  override name = 'PtyHostError';
  constructor(
    readonly op: string,
    readonly kind: ErrorBody['kind'],
    message: string,
  ) {
    super(message);
  }
}

export type OnData = (data: Buffer, offset: number) => void;
export type OnExit = (exit: JobExit) => void;
export type OnProblem = (p: RecordingProblem) => void;

interface Reply {
  rid: number;
  ok: boolean;
  result?: unknown;
  error?: ErrorBody;
}

interface Pending {
  op: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class PtyHostClient {
  private readonly decoder = new FrameDecoder();
  private readonly pending = new Map<number, Pending>();
  private readonly attached = new Map<string, { onData: OnData; onExit: OnExit; onProblem?: OnProblem }>();
  private readonly closeListeners = new Set<(e: Error) => void>();
  private nextId = 1;
  private closedWith: Error | undefined;

  private constructor(
    private readonly socket: Socket,
    readonly hello: Hello,
    reader: Reader,
  ) {
    reader.to = (chunk) => this.received(chunk);
    socket.on('error', (e) => this.closed(e));
    socket.on('close', () => this.closed(new Error('the PTY host closed the connection')));
  }

  static async connect(stateDir: string, o: ConnectOptions = {}): Promise<PtyHostClient> {
    const sock = ptyhostSocket(stateDir);
    const deadline = Date.now() + (o.timeoutMs ?? 5_000);
    let started = false;
    for (;;) {
      try {
        const { socket, reader } = await openSocket(sock);
        return new PtyHostClient(socket, await handshake(socket, reader, sock), reader);
      } catch (e) {
        if (!isAbsent(e)) throw e;
        if (o.start === false) throw new InputError(`no PTY host answers at ${sock}`);
        if (!started) startHost(stateDir, o.hostArgs ?? []);
        started = true;
        if (Date.now() > deadline) throw new Error(`started a PTY host for ${stateDir} but it did not answer at ${sock} within ${o.timeoutMs ?? 5_000} ms (see ${path.join(stateDir, 'ptyhost.log')})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  get hostPid(): number {
    return this.hello.pid;
  }

  spawn(a: SpawnArgs): Promise<{ pid: number }> {
    return this.request('spawn', a);
  }

  write(id: string, data: string | Buffer): Promise<null> {
    return this.request('write', { id }, typeof data === 'string' ? Buffer.from(data) : data);
  }

  resize(id: string, cols: number, rows: number): Promise<null> {
    return this.request('resize', { id, cols, rows });
  }

  kill(id: string, signal = 'SIGTERM'): Promise<null> {
    return this.request('kill', { id, signal });
  }

  list(): Promise<JobInfo[]> {
    return this.request('list', {});
  }

  /**
   * Output from `since` (or the oldest byte the host still holds; the result's
   * `from` says which) and then live output; onExit once, when the job has
   * ended (at once for a job that already has).
   */
  attach(id: string, onData: OnData, onExit: OnExit, since?: number, onProblem?: OnProblem): Promise<AttachResult> {
    // Handlers first: the host replays before it replies.
    this.attached.set(id, { onData, onExit, ...(onProblem ? { onProblem } : {}) });
    return this.request('attach', since === undefined ? { id } : { id, since });
  }

  note(a: NoteArgs): Promise<null> {
    return this.request('note', a);
  }

  async detach(id: string): Promise<void> {
    await this.request('detach', { id });
    this.attached.delete(id);
  }

  /** Told once when the connection ends (the host died or close() was called). */
  onClose(cb: (e: Error) => void): void {
    this.closeListeners.add(cb);
  }

  close(): void {
    this.socket.destroy();
  }

  private request<K extends keyof Requests>(op: K, args: Requests[K]['args'], tail?: Buffer): Promise<Requests[K]['result']> {
    if (this.closedWith) return Promise.reject(new Error(`cannot ${op}: ${this.closedWith.message}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { op, resolve: resolve as (v: unknown) => void, reject });
      this.socket.write(jsonFrame(FRAME.request, { rid: id, op, args }, tail));
    });
  }

  private received(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (e) {
      return void this.socket.destroy(e as Error);
    }
    for (const f of frames) this.dispatch(f);
  }

  private dispatch(f: Frame): void {
    if (f.type === FRAME.output) {
      const o = parseOutput(f.payload);
      return this.attached.get(o.jobId)?.onData(o.data, o.offset);
    }
    const { body } = parseJson(f.payload);
    if (f.type === FRAME.exit) {
      const e = body as { id: string; exit: JobExit };
      const a = this.attached.get(e.id);
      this.attached.delete(e.id);
      return a?.onExit(e.exit);
    }
    if (f.type === FRAME.reply) return this.settle(body as Reply);
    if (f.type === FRAME.problem) {
      const p = body as { id: string } & RecordingProblem;
      return this.attached.get(p.id)?.onProblem?.({ message: p.message, code: p.code });
    }
  }

  private settle(r: Reply): void {
    const p = this.pending.get(r.rid);
    if (!p) return;
    this.pending.delete(r.rid);
    if (r.ok) return p.resolve(r.result);
    const err = r.error ?? { kind: 'internal' as const, message: 'no error text' };
    p.reject(err.kind === 'input' ? new InputError(err.message) : new PtyHostError(p.op, err.kind, err.message));
  }

  private closed(e: Error): void {
    if (this.closedWith) return;
    this.closedWith = e;
    for (const p of this.pending.values()) p.reject(new Error(`${p.op} got no answer: ${e.message}`));
    this.pending.clear();
    for (const cb of this.closeListeners) cb(e);
  }
}

/** Where a socket's reads go: the handshake first, then the client. */
interface Reader {
  to: (chunk: Buffer) => void;
}

/** Bytes one read of the host's socket may bring. */
const READ_BYTES = 64 * 1024;

/**
 * The host's socket, read into one buffer that every read fills again
 * (onread): a flood of output arrives in a few thousand reads, and a fresh
 * buffer for each was garbage V8 freed only with a full mark-compact, run
 * every ~150 ms under the external-memory pressure. Whatever keeps bytes
 * past a read copies them (FrameDecoder, the screen's HeldBytes).
 */
function openSocket(sock: string): Promise<{ socket: Socket; reader: Reader }> {
  const reader: Reader = { to: () => undefined };
  return new Promise((resolve, reject) => {
    const s = netConnect({
      path: sock,
      onread: {
        buffer: Buffer.allocUnsafeSlow(READ_BYTES),
        callback: (n, buf) => {
          reader.to((buf as Buffer).subarray(0, n));
          return true;
        },
      },
    });
    s.once('connect', () => {
      s.off('error', reject);
      resolve({ socket: s, reader });
    });
    s.once('error', reject);
  });
}

/** The host speaks first; anything but a hello of our version ends the connection. */
function handshake(socket: Socket, reader: Reader, sock: string): Promise<Hello> {
  return new Promise((resolve, reject) => {
    const decoder = new FrameDecoder();
    const fail = (e: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(e);
    };
    const timer = setTimeout(() => fail(new Error(`the PTY host at ${sock} sent no hello within 3000 ms`)), 3_000);
    const onData = (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = decoder.push(chunk);
      } catch (e) {
        return fail(e as Error);
      }
      if (frames.length === 0) return;
      clearTimeout(timer);
      reader.to = () => undefined;
      socket.off('close', onClose);
      socket.off('error', fail);
      const hello = frames[0]!.type === FRAME.hello ? (parseJson(frames[0]!.payload).body as Hello) : undefined;
      if (!hello) return fail(new Error(`the PTY host at ${sock} did not start with a hello (frame type ${frames[0]!.type})`));
      if (hello.version !== PTYHOST_VERSION) return fail(new PtyHostVersionError(sock, String(hello.version), hello.pid));
      // The host sends nothing unasked after its hello, so no later frame can be in this chunk.
      resolve(hello);
    };
    const onClose = () => fail(new Error(`the PTY host at ${sock} closed the connection before its hello`));
    reader.to = onData;
    socket.once('close', onClose);
    socket.on('error', fail);
  });
}

/** No socket file, or a file left by a host that died: both mean start one. */
function isAbsent(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

function startHost(stateDir: string, extra: string[]): void {
  // The host makes the run directory 0700 itself; the state directory must exist to be its cwd.
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // Detached: its own session and process group, so our terminal's hang-up or our death does not reach it.
  const child = spawnProcess(process.execPath, [hostEntry(), '--state', stateDir, ...extra], { detached: true, stdio: 'ignore', cwd: stateDir });
  child.on('error', () => undefined); // the connect deadline reports a host that never came up
  child.unref();
}

/**
 * dist/src/ptyhost/main.js of this package (what `nightshift ptyhost` runs,
 * without loading every other verb), found from this file whether it runs
 * from src/ (tests) or dist/src/ (built).
 */
function hostEntry(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'nightshift') return path.join(dir, 'dist', 'src', 'ptyhost', 'main.js');
    if (path.dirname(dir) === dir) throw new Error(`cannot find the nightshift package above ${fileURLToPath(import.meta.url)}`);
  }
}
