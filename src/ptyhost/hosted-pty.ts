/**
 * A job's terminal held by the PTY host process (server.ts) rather than by
 * the daemon: the same PtyPort the supervisor drives PtyHost through, over a
 * PtyHostClient. The child outlives this object and its connection; another
 * client can adopt it.
 */
import { checkSignal, checkSize, sendKeysPaced, sendTextPaced, type PtySpawnOptions } from '../pty/host.js';
import type { Disposable, PtyPort, SendTextOptions } from '../pty/pty-port.js';
import { OutputFan, type OutputChunk } from '../pty/utf8-stream.js';
import { Emitter } from '../util/event.js';
import type { PtyHostClient } from './client.js';
import type { AttachResult, JobExit, SpawnArgs } from './protocol.js';

export interface HostedSpawnOptions extends PtySpawnOptions {
  /** asciicast v2 file the host appends the output to. */
  recording?: string;
  /** More header fields for it (title, env). */
  header?: Record<string, unknown>;
  recordingCap?: number;
  /** This side ends the recording after the exit (HostRecording.exit). */
  clientCloses?: boolean;
}

/** What `exited` gives for a job whose host died: no exit status, only why it is gone. */
export interface LostExit extends JobExit {
  lost: string;
}

export class HostedPty implements PtyPort {
  private readonly output = new OutputFan();
  private readonly problems = new Emitter<Error>();
  private lastProblem: Error | undefined;
  /**
   * The host replays a job's buffer before it answers attach, so output
   * arrives before the caller has a HostedPty to subscribe to. It is held
   * until the turn of the event loop after the factory resolved; a caller
   * that subscribes right after its await hears all of it, as with PtyHost.
   */
  private held: Array<{ data: Buffer; offset: number } | JobExit> | undefined = [];
  /** Where the attach's replay ended: output before it happened before this client came. */
  private replayTo = 0;
  private exitInfo: JobExit | undefined;
  private exitSeen = false;
  private disposed = false;
  private nextOffset = 0;
  private resolveExit!: (e: JobExit) => void;
  private pidValue = 0;
  /** Where the replay began: beyond the `since` asked for when the host's buffer no longer held it. */
  private fromValue = 0;
  /**
   * Resolves once the child has exited and its output was delivered. Never
   * if the connection ends first: the job may still run in the host, and the
   * client's onClose tells its owner to adopt it again.
   */
  readonly exited: Promise<JobExit> = new Promise((r) => (this.resolveExit = r));

  private constructor(
    private client: PtyHostClient,
    readonly id: string,
  ) {}

  /** A new job on the host; bad input (size, cwd, command) rejects with InputError, as PtyHost.spawn throws it. */
  static async spawn(client: PtyHostClient, id: string, o: HostedSpawnOptions): Promise<HostedPty> {
    checkSize(o.cols, o.rows);
    // One request: awaiting the spawn before attaching let `yes € | head` print more than the host's ring in the round trip, and the replay began mid-character.
    const p = new HostedPty(client, id);
    return p.begin(await client.spawnAttached(spawnArgs(id, o), (d, off) => p.received(d, off), (e) => p.ended(e), (e) => p.problem(e)));
  }

  /** A job the host already runs (or ran): its output from `since` (default: all it holds), then live. */
  static adopt(client: PtyHostClient, id: string, since?: number): Promise<HostedPty> {
    return HostedPty.attach(client, id, since);
  }

  private static async attach(client: PtyHostClient, id: string, since: number | undefined): Promise<HostedPty> {
    const p = new HostedPty(client, id);
    return p.begin(await client.attach(id, (d, off) => p.received(d, off), (e) => p.ended(e), since, (e) => p.problem(e)));
  }

  private begin(r: AttachResult): HostedPty {
    this.pidValue = r.pid;
    this.fromValue = r.from;
    this.replayTo = r.to;
    setImmediate(() => this.release());
    return this;
  }

  get pid(): number {
    return this.pidValue;
  }

  /**
   * The connection ended but the host lives (it cut off a client that read
   * nothing for seconds): go on over `client` from the first byte not yet
   * received, so nothing is missed or repeated.
   */
  async reattach(client: PtyHostClient): Promise<void> {
    this.client = client;
    if (this.exitSeen || this.disposed) return;
    await client.attach(this.id, (d, off) => this.received(d, off), (e) => this.ended(e), this.nextOffset, (e) => this.problem(e));
  }

  /** The host died: the child went with it (its terminal hung up). `exited` resolves with why. */
  lost(why: string): void {
    if (this.exitSeen) return;
    this.ended({ exitCode: 0, signal: null, at: new Date().toISOString(), lost: why } as LostExit);
  }

  /** The host could not write the job's recording (a full disk): an Error with the errno code. Told of one that came before, too. */
  onRecordingProblem(cb: (e: Error) => void): Disposable {
    const sub = this.problems.event(cb);
    if (this.lastProblem) cb(this.lastProblem);
    return sub;
  }

  private problem(p: { message: string; code: string | null }): void {
    const e = Object.assign(new Error(`the PTY host could not write the recording: ${p.message}`), { code: p.code ?? undefined });
    this.lastProblem = e;
    this.problems.fire(e);
  }

  /** An event of ours (input, a marker) in the recording the host writes; `stop` ends that recording. */
  note(code: 'i' | 'm', data: string, stop = false): void {
    // After the exit too: the host keeps the recording open for the job's last markers.
    if (this.disposed) return;
    this.send(this.client.note({ id: this.id, code, data, ...(stop ? { stop } : {}) }));
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** With the time the host saw it, for a job that ended while nobody was attached. */
  get exit(): JobExit | undefined {
    return this.exitInfo;
  }

  get from(): number {
    return this.fromValue;
  }

  /** The offset after the last byte received: `since` for a later adopt that should neither miss nor repeat. */
  get offset(): number {
    return this.nextOffset;
  }

  onData(cb: (data: string) => void): Disposable {
    return this.output.onText(cb);
  }

  onOutput(cb: (chunk: OutputChunk) => void): Disposable {
    return this.output.onOutput(cb);
  }

  write(data: string): void {
    if (!this.writable() || data === '') return;
    this.send(this.client.write(this.id, data));
  }

  sendText(text: string, o: SendTextOptions = {}): Promise<void> {
    return sendTextPaced((d) => this.write(d), text, o);
  }

  sendKeys(names: string[], pauseMs?: number): Promise<void> {
    return sendKeysPaced((d) => this.write(d), names, pauseMs);
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (!this.writable()) return;
    this.send(this.client.resize(this.id, cols, rows));
  }

  /** The host checks again, against its own knowledge of the exit, before it signals. */
  kill(signal = 'SIGTERM'): void {
    checkSignal(signal);
    if (this.exitSeen) return;
    this.send(this.client.kill(this.id, signal));
  }

  /** Stops listening and detaches; unlike PtyHost it leaves the child running: surviving its owner is the point. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.output.clear();
    this.held = undefined;
    if (!this.exitSeen) this.send(this.client.detach(this.id));
  }

  private received(data: Buffer, offset: number): void {
    // A reattach replays from nextOffset; anything before it (a frame in flight at the cut) was delivered already.
    if (offset + data.length <= this.nextOffset) return;
    if (offset < this.nextOffset) data = data.subarray(this.nextOffset - offset);
    this.nextOffset = Math.max(this.nextOffset, offset) + data.length;
    // The client's buffer is a view of its socket chunk: a held one must be a copy.
    if (this.held) this.held.push({ data: Buffer.from(data), offset });
    else this.deliver(data);
  }

  private ended(e: JobExit): void {
    this.exitSeen = true;
    if (this.held) this.held.push(e);
    else this.finish(e);
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const item of held) {
      if ('data' in item) this.deliver(item.data);
      else this.finish(item);
    }
  }

  /**
   * Takes the replay out of what is held (call right after adopt resolved):
   * the output the job printed before this attach, for its owner to rebuild
   * the screen from. What came after stays, for onData and onOutput.
   */
  takeReplay(): Buffer {
    const held = this.held ?? [];
    const parts: Buffer[] = [];
    let i = 0;
    for (; i < held.length; i++) {
      const item = held[i]!;
      if (!('data' in item) || item.offset >= this.replayTo) break;
      const cut = Math.min(item.data.length, this.replayTo - item.offset);
      parts.push(item.data.subarray(0, cut));
      if (cut < item.data.length) {
        held[i] = { data: item.data.subarray(cut), offset: item.offset + cut };
        break;
      }
    }
    held.splice(0, i);
    const replay = Buffer.concat(parts);
    this.output.before(replay);
    return replay;
  }

  private deliver(data: Buffer): void {
    if (!this.disposed) this.output.push(data);
  }

  private finish(e: JobExit): void {
    if (!this.disposed) this.output.end();
    this.exitInfo = e;
    this.resolveExit(e);
  }

  private writable(): boolean {
    return !this.disposed && !this.exitSeen;
  }

  /**
   * Requests are fire-and-forget, as PtyHost's calls are synchronous; the
   * socket keeps them in order. Their arguments were checked here, so the
   * one failure left is a lost connection, which the client's onClose reports.
   */
  private send(request: Promise<unknown>): void {
    request.catch(() => undefined);
  }
}

/** $TERM travels in the environment: the host names the terminal after env.TERM, as node-pty names it after `name`. */
function spawnArgs(id: string, o: HostedSpawnOptions): SpawnArgs {
  const { name, recording, header, recordingCap, clientCloses, ...rest } = o;
  const env = name === undefined ? rest.env : { ...rest.env, TERM: name };
  return { ...rest, env, id, ...(recording ? { recording } : {}), ...(header ? { header } : {}), ...(recordingCap ? { recordingCap } : {}), ...(clientCloses ? { clientCloses } : {}) };
}
