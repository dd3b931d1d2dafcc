/**
 * The PTY host: one process per state directory that owns every job's PTY
 * master and child, so the daemon can die, restart or be upgraded while the
 * jobs go on. It serves clients on DIR/run/ptyhost.sock (protocol.ts) and
 * holds no logic of its own beyond keeping output and exits until a client
 * asks for them.
 *
 * Who may connect: Node cannot read SO_PEERCRED, so the peer's uid is not
 * checked here. The socket is 0600 inside the 0700 run directory (checked
 * to be ours by ensureRunDir), which the kernel enforces on connect(2): only
 * our uid (and root) can reach it.
 */
import { appendFileSync, chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { daemonPaths, ensureRunDir } from '../daemon/paths.js';
import { DaemonLock } from '../daemon/lock.js';
import { InputError } from '../util/errors.js';
import { HostJob, type JobSink } from './job.js';
import { FRAME, FrameDecoder, jsonFrame, outputHeader, parseJson, PTYHOST_VERSION, ptyhostSocket, type ErrorBody, type JobExit, type RecordingProblem } from './protocol.js';

export interface HostOptions {
  /** Exit after this long with no client and nothing a client has yet to hear. */
  idleMs: number;
  /** Bytes of recent output kept per job for attach. */
  ringBytes: number;
}

/** 10 s: long enough for a daemon restart to reconnect, short enough not to linger after a test or a `run`. */
export const DEFAULT_IDLE_MS = 10_000;
/** 512 KiB: many screens of a busy agent, and inside point 4's budget of 1 MB of host RSS per job. */
export const DEFAULT_RING_BYTES = 512 * 1024;
/** An exit nobody has heard keeps the host up this long at most, for a daemon that comes back late. */
const UNHEARD_EXIT_KEEP_MS = 60 * 60_000;
/** A client's socket holding this much unsent output pauses the jobs feeding it (backpressure, not memory). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** A client that takes no output for this long is cut off so it cannot stall jobs; it can attach again. */
const STALL_MS = 10_000;
/** Output waits at most this long to be sent with more (a keystroke's echo is 2 ms later, a flood costs 20× fewer frames). */
const FLUSH_MS = 2;
const BATCH_BYTES = 128 * 1024;

const jobId = z.string().min(1).max(512);
const size = z.number().int().min(1).max(65535);
const SCHEMAS = {
  spawn: z.object({
    id: jobId,
    command: z.string(),
    args: z.array(z.string()),
    cwd: z.string(),
    env: z.record(z.string(), z.string()),
    cols: size,
    rows: size,
    recording: z.string().min(1).optional(),
    header: z.record(z.string(), z.unknown()).optional(),
    recordingCap: z.number().int().positive().optional(),
    clientCloses: z.boolean().optional(),
  }),
  write: z.object({ id: jobId }),
  resize: z.object({ id: jobId, cols: size, rows: size }),
  kill: z.object({ id: jobId, signal: z.string() }),
  list: z.object({}),
  attach: z.object({ id: jobId, since: z.number().int().min(0).optional() }),
  detach: z.object({ id: jobId }),
  note: z.object({ id: jobId, code: z.enum(['i', 'm']), data: z.string(), stop: z.boolean().optional() }),
};
/** `rid` numbers the request for its reply; the operation's own arguments (a job's `id` among them) sit apart in `args`. */
const REQUEST = z.object({ rid: z.number().int(), op: z.enum(Object.keys(SCHEMAS) as [keyof typeof SCHEMAS]), args: z.unknown() });

export class PtyHostServer {
  private readonly jobs = new Map<string, HostJob>();
  /** Exited jobs whose exit no client has been told of yet (with when they ended). */
  private readonly unheard = new Map<HostJob, number>();
  private readonly conns = new Set<Conn>();
  private server: Server | undefined;
  private socketPath: string | undefined;
  /** The socket file's inode: a daemon may move a host of another version aside and start one here, whose file this host must not remove. */
  private socketIno: number | undefined;
  private idleSince: number | undefined;

  constructor(
    readonly opts: HostOptions,
    readonly log: (line: string) => void,
  ) {}

  async listen(path: string): Promise<void> {
    this.server = await listenPrivate(path, (s) => this.accept(s));
    this.socketPath = path;
    this.socketIno = statSync(path).ino;
  }

  close(): void {
    this.server?.close();
    for (const c of this.conns) c.socket.destroy();
    if (this.socketPath && inode(this.socketPath) === this.socketIno) rmSync(this.socketPath, { force: true });
  }

  /** True once the host has had no client and nothing to hand over for idleMs. */
  idle(now = Date.now()): boolean {
    const busy = this.conns.size > 0 || [...this.jobs.values()].some((j) => !j.exit) || [...this.unheard.values()].some((t) => now - t < UNHEARD_EXIT_KEEP_MS);
    if (busy) this.idleSince = undefined;
    else this.idleSince ??= now;
    return this.idleSince !== undefined && now - this.idleSince >= this.opts.idleMs;
  }

  heard(job: HostJob): void {
    this.unheard.delete(job);
  }

  forget(conn: Conn): void {
    this.conns.delete(conn);
    for (const j of this.jobs.values()) this.detach(conn, j);
  }

  private accept(socket: Socket): void {
    const conn = new Conn(socket, this);
    this.conns.add(conn);
    conn.send(jsonFrame(FRAME.hello, { version: PTYHOST_VERSION, pid: process.pid }));
  }

  handle(conn: Conn, body: unknown, tail: Buffer): void {
    const head = REQUEST.safeParse(body);
    if (!head.success) {
      const issue = head.error.issues[0];
      const message = `bad request ${JSON.stringify(body)?.slice(0, 200)}: ${issue?.path.join('.')}: ${issue?.message}`;
      return conn.send(jsonFrame(FRAME.reply, { rid: 0, ok: false, error: { kind: 'input', message } }));
    }
    const { rid, op, args } = head.data;
    try {
      const result = this.run(conn, op, SCHEMAS[op].parse(args), tail);
      conn.send(jsonFrame(FRAME.reply, { rid, ok: true, result: result ?? null }));
    } catch (e) {
      if (!(e instanceof InputError || e instanceof z.ZodError)) this.log(`error in ${op}: ${(e as Error).stack ?? String(e)}`);
      conn.send(jsonFrame(FRAME.reply, { rid, ok: false, error: errorBody(op, e) }));
    }
  }

  private run(conn: Conn, op: keyof typeof SCHEMAS, a: Record<string, unknown>, tail: Buffer): unknown {
    switch (op) {
      case 'spawn':
        return this.spawn(a as z.infer<typeof SCHEMAS.spawn>);
      case 'write':
        // A copy: the tail is a view of the decoder's buffers (good until its next push), and the PTY's write may queue it.
        return this.job(a.id).write(Buffer.from(tail));
      case 'resize':
        return this.job(a.id).resize(a.cols as number, a.rows as number);
      case 'kill':
        return this.job(a.id).kill(a.signal as string);
      case 'list':
        return this.list();
      case 'attach':
        return this.attach(conn, this.job(a.id), a.since as number | undefined);
      case 'detach':
        return this.detach(conn, this.job(a.id));
      case 'note':
        return this.job(a.id).note(a as z.infer<typeof SCHEMAS.note>);
    }
  }

  private spawn(a: z.infer<typeof SCHEMAS.spawn>): { pid: number } {
    const old = this.jobs.get(a.id);
    // An ended job may be started again under its id (a daemon that died between the spawn and the board's word on it).
    if (old && !old.exit) throw new InputError(`job ${JSON.stringify(a.id)} already runs on this host (pid ${old.pid}); job ids must be unique`);
    if (old) this.unheard.delete(old);
    const job = HostJob.spawn(a, this.opts.ringBytes, (j) => this.ended(j));
    this.jobs.set(a.id, job);
    this.log(`spawn ${a.id} pid ${job.pid}: ${a.command}`);
    return { pid: job.pid };
  }

  private ended(job: HostJob): void {
    this.log(`exit ${job.id} pid ${job.pid}: ${JSON.stringify(job.exit)}`);
    if (job.sinks.size === 0) this.unheard.set(job, Date.now());
  }

  private list() {
    const infos = [...this.jobs.values()].map((j) => j.info());
    for (const j of this.jobs.values()) if (j.exit) this.heard(j);
    return infos;
  }

  /** Replays the ring from `since` then subscribes, in one synchronous step: no byte is lost or sent twice. */
  private attach(conn: Conn, job: HostJob, since: number | undefined) {
    const { from, chunks } = job.ring.since(since ?? 0);
    let offset = from;
    for (const c of chunks) {
      conn.output(job, offset, c);
      offset += c.length;
    }
    if (job.recordingProblem) conn.problem(job, job.recordingProblem);
    if (job.exit) {
      conn.exit(job, job.exit);
    } else {
      job.sinks.add(conn);
    }
    return { from, to: job.ring.end, pid: job.pid, exit: job.exit };
  }

  private detach(conn: Conn, job: HostJob): null {
    job.sinks.delete(conn);
    job.resumeFor(conn);
    return null;
  }

  private job(id: unknown): HostJob {
    const job = this.jobs.get(id as string);
    if (!job) throw new InputError(`no job ${JSON.stringify(id)} on this host; it has ${this.jobs.size ? [...this.jobs.keys()].map((k) => JSON.stringify(k)).join(', ') : 'none'}`);
    return job;
  }
}

/** One client connection; as a job sink it frames output and exits onto the socket. */
class Conn implements JobSink {
  private readonly decoder = new FrameDecoder();
  private readonly paused = new Set<HostJob>();
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly batch = new Map<HostJob, { offset: number; chunks: Buffer[] }>();
  private batchBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: Socket,
    private readonly host: PtyHostServer,
  ) {
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.closed());
    socket.on('drain', () => this.drained());
    socket.on('data', (chunk: Buffer) => this.received(chunk));
  }

  /** Control frames go out after any output batched before them, so a client sees everything in order. */
  send(frame: Buffer): void {
    this.flush();
    if (!this.socket.destroyed) this.socket.write(frame);
  }

  /**
   * A busy PTY is read about 4 KB at a time, one read per turn of the event
   * loop. Output is held for up to FLUSH_MS (or BATCH_BYTES) and leaves as one
   * frame per job in one writev: one copy of the bytes buys a system call, a
   * wake-up of the client and a frame to parse per batch instead of per read.
   */
  output(job: HostJob, offset: number, data: Buffer): void {
    if (this.socket.destroyed) return;
    const b = this.batch.get(job);
    if (b) b.chunks.push(data);
    else this.batch.set(job, { offset, chunks: [data] });
    this.batchBytes += data.length;
    if (this.batchBytes >= BATCH_BYTES) return this.flush();
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.batchBytes = 0;
    if (this.batch.size === 0) return;
    const batch = [...this.batch];
    this.batch.clear();
    if (this.socket.destroyed) return;
    this.socket.cork();
    for (const [job, { offset, chunks }] of batch) {
      const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      this.socket.write(outputHeader(job.id, offset, data.length));
      this.socket.write(data);
    }
    this.socket.uncork();
    if (this.socket.writableLength <= HIGH_WATER_BYTES) return;
    for (const [job] of batch) if (!this.paused.has(job) && !job.exit) this.pause(job);
  }

  problem(job: HostJob, p: RecordingProblem): void {
    this.send(jsonFrame(FRAME.problem, { id: job.id, ...p }));
  }

  exit(job: HostJob, exit: JobExit): void {
    // A dying connection has not heard it: the exit stays for the next client.
    if (this.socket.destroyed) return;
    this.send(jsonFrame(FRAME.exit, { id: job.id, exit }));
    this.host.heard(job);
  }

  private received(chunk: Buffer): void {
    let frames;
    try {
      frames = this.decoder.push(chunk);
    } catch (e) {
      this.host.log(`dropping a client: ${(e as Error).message}`);
      return void this.socket.destroy();
    }
    for (const f of frames) {
      let request;
      try {
        if (f.type !== FRAME.request) throw new Error(`frame type ${f.type} from a client, expected ${FRAME.request} (request)`);
        request = parseJson(f.payload);
      } catch (e) {
        // A broken client loses its connection, never the host (and with it every job).
        this.host.log(`dropping a client: ${(e as Error).message}`);
        return void this.socket.destroy();
      }
      this.host.handle(this, request.body, request.tail);
    }
  }

  private pause(job: HostJob): void {
    this.paused.add(job);
    job.pauseFor(this);
    this.stallTimer ??= setTimeout(() => {
      this.host.log(`cutting off a client that left ${this.socket.writableLength} bytes unread for ${STALL_MS} ms; its jobs read on`);
      this.socket.destroy();
    }, STALL_MS);
  }

  private drained(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    for (const j of this.paused) j.resumeFor(this);
    this.paused.clear();
  }

  private closed(): void {
    this.drained();
    this.host.forget(this);
  }
}

function inode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

function errorBody(op: string, e: unknown): ErrorBody {
  if (e instanceof InputError) return { kind: 'input', message: e.message };
  if (e instanceof z.ZodError) {
    const issue = e.issues[0];
    return { kind: 'input', message: `bad ${op} request: ${issue?.path.join('.') || 'arguments'}: ${issue?.message}` };
  }
  return { kind: 'internal', message: `${op} failed: ${e instanceof Error ? e.message : String(e)}` };
}

/**
 * Runs the host for a state directory until it is idle: takes the host lock
 * (a second host started in a race exits at once and its client connects to
 * the first), listens, and exits by itself. Returns false if another host
 * already runs.
 */
export async function runHost(stateDir: string, opts: HostOptions): Promise<boolean> {
  const paths = daemonPaths(stateDir);
  ensureRunDir(paths);
  const lock = takeLock(join(paths.runDir, 'ptyhost.lock'));
  if (!lock) return false;
  const logFile = join(stateDir, 'ptyhost.log');
  const log = (line: string) => appendFileSync(logFile, `${new Date().toISOString()} [${process.pid}] ${line}\n`, { mode: 0o600 });
  const host = new PtyHostServer(opts, log);
  // A hang-up of whoever started us is not a reason to take every job down.
  process.on('SIGHUP', () => undefined);
  const stop = (why: string) => {
    log(`stopping: ${why}`);
    host.close();
    lock.release();
    process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('uncaughtException', (e) => {
    log(`internal error: ${e.stack ?? e.message}`);
    stop('internal error');
  });
  await host.listen(ptyhostSocket(stateDir));
  log(`listening on ${ptyhostSocket(stateDir)} (${PTYHOST_VERSION}, idle exit after ${opts.idleMs} ms)`);
  const every = Math.max(50, Math.min(1_000, Math.floor(opts.idleMs / 4)));
  setInterval(() => host.idle() && stop(`idle for ${opts.idleMs} ms with no client and no job`), every);
  return true;
}

/** The daemon's pid-file lock, reused: a live owner means another host serves this directory. */
function takeLock(path: string): DaemonLock | undefined {
  try {
    return DaemonLock.acquire(path);
  } catch (e) {
    if (e instanceof InputError && /already runs/.test(e.message)) return undefined;
    throw e;
  }
}

/**
 * Binds under a temporary name, sets 0600, then renames into place: never a
 * moment of wider access. (The same steps as the daemon's ControlServer.listen,
 * which can call this once it is free to change.)
 */
export async function listenPrivate(path: string, onConnection: (s: Socket) => void): Promise<Server> {
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(tmp, () => resolve());
  });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return server;
}
