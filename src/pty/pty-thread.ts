/**
 * A job's PTY on a worker thread of its own (pty-worker.ts), for a
 * supervisor in the same process (`nightshift run`). A tty hands over a few
 * KB a read and its writer waits while nobody reads: every ms the main
 * thread spent on the output (recording, the screen) was a ms the job
 * stood still, so `run` took a 200 MB flood at 0.55x a bare reader with its
 * main thread half idle. The worker reads as fast as a bare reader and
 * copies the bytes into memory both threads share (util/shared-ring.ts),
 * which the main thread reads on its own clock: the main thread's work runs
 * beside the job, and no message goes per read.
 */
import type { Worker } from 'node:worker_threads';
import { checkDirectory, checkSignal, checkSize, LocalPty, resolveCommand, signalName, type PtySpawnOptions } from './host.js';
import type { PtyExit } from './pty-port.js';
import type { FromPtyWorker, ToPtyWorker } from './pty-thread-protocol.js';
import { takePtyThread } from './pty-thread-warm.js';
import { SharedRing } from '../util/shared-ring.js';

/**
 * The ring the output comes through: the most a job may print ahead of its
 * supervisor before it waits (the PTY paused). The supervisor reads it every
 * POLL_MS while output comes and sleeps after IDLE_POLLS reads that found
 * nothing, until the thread wakes it with a message.
 */
const RING_BYTES = 8 * 1024 * 1024;
const POLL_MS = 2;
const IDLE_POLLS = 3;

export class ThreadedPty extends LocalPty {
  private disposed = false;
  /**
   * The thread's first output and even its exit can arrive with the spawn's
   * answer, before the caller has a ThreadedPty to subscribe to: held until
   * the turn of the event loop after spawn() resolved, so a caller that
   * subscribes right after its await hears all of it, as with PtyHost.
   */
  private held: FromPtyWorker[] | undefined = [];
  private resolveExit!: (e: PtyExit) => void;
  readonly exited: Promise<PtyExit> = new Promise((resolve) => (this.resolveExit = resolve));

  private poller: NodeJS.Timeout | undefined;
  private idlePolls = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly ring: SharedRing,
    readonly pid: number,
  ) {
    super();
    worker.on('message', (m: FromPtyWorker) => this.received(m));
    // A worker that dies under a live job leaves it without a terminal: said as an exit, never a hang.
    worker.on('error', (e) => this.ended({ exitCode: 1, signal: null, lost: `the PTY thread failed: ${e.message}` }));
  }

  /** Checks the request here (bad input is an InputError, as PtyHost.spawn throws it), then spawns on the thread. */
  static spawn(o: PtySpawnOptions): Promise<ThreadedPty> {
    checkSize(o.cols, o.rows);
    checkDirectory(o.cwd);
    resolveCommand(o.command, o.cwd, o.env.PATH);
    const worker = takePtyThread();
    const ring = new SharedRing(SharedRing.memory(RING_BYTES));
    worker.postMessage({ op: 'spawn', options: o, ring: ring.shared } satisfies ToPtyWorker);
    return new Promise((resolve, reject) => {
      const first = (m: FromPtyWorker) => {
        worker.off('message', first);
        worker.off('error', failed);
        if (m.op === 'spawned') {
          const pty = new ThreadedPty(worker, ring, m.pid);
          resolve(pty);
          return void setImmediate(() => pty.release());
        }
        void worker.terminate();
        reject(new Error(`could not start ${o.command}: ${m.op === 'failed' ? m.message : `unexpected ${m.op} from the PTY thread`}`));
      };
      const failed = (e: Error) => reject(new Error(`could not start ${o.command}: the PTY thread failed: ${e.message}`, { cause: e }));
      worker.on('message', first);
      worker.once('error', failed);
    });
  }

  write(data: string): void {
    if (this.writable() && data !== '') this.send({ op: 'write', data });
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (this.writable()) this.send({ op: 'resize', cols, rows });
  }

  kill(signal = 'SIGTERM'): void {
    checkSignal(signal);
    if (this.exitInfo === undefined) this.send({ op: 'kill', signal });
  }

  pause(): void {
    if (this.writable()) this.send({ op: 'hold', hold: true });
  }

  resume(): void {
    if (this.writable()) this.send({ op: 'hold', hold: false });
  }

  /**
   * Stops listening; a child still running is hung up on (SIGHUP), as a
   * closed terminal would. Its thread ends once the child has: node-pty
   * waits for the child on a native thread of its own, and ending the worker
   * under it aborts the whole process (Napi::Error in a callback to a torn
   * down thread: 'FATAL ERROR: Error::Error napi_define_properties', seen
   * in CI when the thread was terminated right after the exit too). It no
   * longer keeps this process alive.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.poller);
    this.output.clear();
    if (this.exitInfo !== undefined) return;
    this.send({ op: 'hangup' });
    this.worker.unref();
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const m of held) this.received(m);
  }

  private received(m: FromPtyWorker): void {
    if (this.held) return void this.held.push(m);
    if (m.op === 'wake') this.poll();
    else if (m.op === 'exit') {
      // All the output is in the ring before the exit is said.
      this.drain();
      this.output.end();
      this.ended({ exitCode: m.exitCode, signal: signalName(m.signal ?? undefined) });
    }
  }

  /** Reads what the ring holds; reads again in POLL_MS while output comes, else sleeps until woken. */
  private poll(): void {
    clearTimeout(this.poller);
    this.poller = undefined;
    if (this.disposed || this.exitInfo !== undefined) return;
    this.idlePolls = this.drain() ? 0 : this.idlePolls + 1;
    if (this.idlePolls < IDLE_POLLS || !this.ring.sleep()) this.poller = setTimeout(() => this.poll(), POLL_MS);
  }

  private drain(): boolean {
    const data = this.ring.read();
    if (data) this.output.push(data);
    return data !== undefined;
  }

  /** The thread is never terminated under node-pty (see dispose): it ends by itself after the exit, and no longer keeps this process alive. */
  private ended(info: PtyExit): void {
    if (this.exitInfo !== undefined) return;
    this.exitInfo = info;
    clearTimeout(this.poller);
    this.resolveExit(info);
    this.worker.unref();
  }

  private send(m: ToPtyWorker): void {
    this.worker.postMessage(m);
  }

  private writable(): boolean {
    return !this.disposed && this.exitInfo === undefined;
  }
}
