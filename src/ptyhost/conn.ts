/**
 * The host's side of one client (server.ts): request frames in, replies and
 * batched output out, and backpressure on the jobs when the client falls behind.
 */
import type { Socket } from 'node:net';
import type { HostJob, JobSink } from './job.js';
import { FRAME, FrameDecoder, jsonFrame, outputHeader, parseJson, type JobExit, type RecordingProblem } from './protocol.js';

/** A client's socket holding this much unsent output pauses the jobs feeding it (backpressure, not memory). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** A client that takes no output for this long is cut off so it cannot stall jobs; it can attach again. */
const STALL_MS = 10_000;
/** Output waits at most this long to be sent with more (a keystroke's echo is 2 ms later, a flood costs 20× fewer frames). */
const FLUSH_MS = 2;
const BATCH_BYTES = 128 * 1024;

/** What a connection asks of the host that accepted it (server.ts's PtyHostServer fits it). */
export interface ConnHost {
  handle(conn: Conn, body: unknown, tail: Buffer): void;
  heard(job: HostJob): void;
  forget(conn: Conn): void;
  log(line: string): void;
}

/** One client connection; as a job sink it frames output and exits onto the socket. */
export class Conn implements JobSink {
  private readonly decoder = new FrameDecoder();
  private readonly paused = new Set<HostJob>();
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly batch = new Map<HostJob, { offset: number; chunks: Buffer[] }>();
  private batchBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: Socket,
    private readonly host: ConnHost,
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
