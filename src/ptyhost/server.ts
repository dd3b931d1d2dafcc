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
import { rmSync, statSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import { Conn, type ConnHost } from './conn.js';
import { HostJob } from './job.js';
import { FRAME, jsonFrame, PTYHOST_VERSION, type ErrorBody } from './protocol.js';
import { inode, listenPrivate } from './socket-file.js';

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
    attach: z.boolean().optional(),
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

export class PtyHostServer implements ConnHost {
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
      case 'spawn': {
        const job = this.spawn(a as z.infer<typeof SCHEMAS.spawn>);
        // In the step that spawned it: a job printing faster than a round trip fills the ring before a separate attach comes.
        return a.attach ? this.attach(conn, job, 0) : { pid: job.pid };
      }
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

  private spawn(a: z.infer<typeof SCHEMAS.spawn>): HostJob {
    const old = this.jobs.get(a.id);
    // An ended job may be started again under its id (a daemon that died between the spawn and the board's word on it).
    if (old && !old.exit) throw new InputError(`job ${JSON.stringify(a.id)} already runs on this host (pid ${old.pid}); job ids must be unique`);
    if (old) this.unheard.delete(old);
    const job = HostJob.spawn(a, this.opts.ringBytes, (j) => this.ended(j));
    this.jobs.set(a.id, job);
    this.log(`spawn ${a.id} pid ${job.pid}: ${a.command}`);
    return job;
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

function errorBody(op: string, e: unknown): ErrorBody {
  if (e instanceof InputError) return { kind: 'input', message: e.message };
  if (e instanceof z.ZodError) {
    const issue = e.issues[0];
    return { kind: 'input', message: `bad ${op} request: ${issue?.path.join('.') || 'arguments'}: ${issue?.message}` };
  }
  return { kind: 'internal', message: `${op} failed: ${e instanceof Error ? e.message : String(e)}` };
}
