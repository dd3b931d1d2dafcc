/**
 * A typed client of the PTY host (server.ts). `connect` starts the host,
 * detached, when none answers for the state directory, and refuses a host
 * of another version: that host keeps serving the jobs it has.
 */
import type { Socket } from 'node:net';
import { InputError } from '../util/errors.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { dialHost, type ConnectOptions, type Reader } from './dial.js';
import { FRAME, FrameDecoder, jsonFrame, parseJson, parseOutput, type AttachResult, type ErrorBody, type Frame, type Hello, type JobExit, type JobInfo, type NoteArgs, type RecordingProblem, type Requests, type SpawnArgs } from './protocol.js';

export { PtyHostVersionError, type ConnectOptions } from './dial.js';

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
  private readonly closes = new Emitter<Error>();
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
    const { socket, reader, hello } = await dialHost(stateDir, o);
    return new PtyHostClient(socket, hello, reader);
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
   * spawn and attach in one request, so the output comes from the job's
   * first byte however fast it prints. A host that does not know `attach`
   * (it ignores the field) answers `{pid}`: then a separate attach follows.
   */
  async spawnAttached(a: SpawnArgs, onData: OnData, onExit: OnExit, onProblem?: OnProblem): Promise<AttachResult> {
    const before = this.attached.get(a.id);
    this.attached.set(a.id, { onData, onExit, ...(onProblem ? { onProblem } : {}) });
    try {
      const r = await this.request('spawn', { ...a, attach: true });
      if (r.to !== undefined && r.from !== undefined) return { from: r.from, to: r.to, pid: r.pid, exit: r.exit ?? null };
      return await this.request('attach', { id: a.id, since: 0 });
    } catch (e) {
      // The spawn was refused (a job of that id still runs): whoever listened to that id before still does.
      if (this.attached.get(a.id)?.onData !== onData) throw e;
      if (before) this.attached.set(a.id, before);
      else this.attached.delete(a.id);
      throw e;
    }
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
  onClose(cb: (e: Error) => void): Disposable {
    return this.closes.event(cb);
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
    this.closes.fire(e);
  }
}
