/**
 * One child on its own PTY, owned by the host: its output goes to a bounded
 * ring (to rebuild a screen after a reconnect), to its recording file, and
 * to whoever is attached. It knows nothing about rules, boards or pages.
 */
import { constants as osConstants } from 'node:os';
import { statSync } from 'node:fs';
import { spawn as ptySpawn, type IPty } from 'node-pty';
import { keepLastWords } from '../pty/last-words.js';
import { resolveCommand } from '../pty/host.js';
import { InputError } from '../util/errors.js';
import type { JobExit, JobInfo, NoteArgs, RecordingProblem, SpawnArgs } from './protocol.js';
import { recordingThread, type JobRecording } from './recording-thread.js';
import { OutputRing } from './ring.js';

export interface JobSink {
  output(job: HostJob, offset: number, data: Buffer): void;
  exit(job: HostJob, exit: JobExit): void;
  problem(job: HostJob, p: RecordingProblem): void;
}

/** How long after an exit the recording waits for the attached client's last note (its final markers and `exit:`). */
const LAST_NOTE_MS = 10_000;

export class HostJob {
  readonly ring: OutputRing;
  readonly sinks = new Set<JobSink>();
  readonly startedAt = new Date();
  private exitInfo: JobExit | null = null;
  private closeTimer: NodeJS.Timeout | undefined;
  /** Why the recording stopped, for whoever attaches later too. */
  recordingProblem: RecordingProblem | null = null;
  /** Sinks that asked for a pause (a client whose socket is full); the PTY reads again when none is left. */
  private readonly pausers = new Set<JobSink>();
  /** Stands for the recording's thread among the pausers. */
  private readonly recorder: JobSink = { output: () => undefined, exit: () => undefined, problem: () => undefined };

  private constructor(
    readonly id: string,
    readonly command: string,
    private readonly pty: IPty,
    ringBytes: number,
    private recording: JobRecording | undefined,
    private readonly onEnd: (job: HostJob) => void,
    private readonly clientCloses: boolean,
  ) {
    this.ring = new OutputRing(ringBytes);
    // encoding: null makes node-pty hand over Buffers, whatever its typings say.
    pty.onData((d) => this.onOutput(d as unknown as Buffer));
    pty.onExit(({ exitCode, signal }) => this.onExit(exitCode, signal));
  }

  static spawn(a: SpawnArgs, ringBytes: number, onEnd: (job: HostJob) => void): HostJob {
    checkSize(a.cols, a.rows);
    checkDirectory(a.cwd);
    resolveCommand(a.command, a.cwd, a.env.PATH);
    const startMs = Date.now();
    const header = { command: [a.command, ...a.args].join(' '), ...a.header, width: a.cols, height: a.rows };
    let job: HostJob | undefined;
    let early: RecordingProblem | null = null;
    const problem = (e: Error) => {
      const p = { message: e.message, code: (e as NodeJS.ErrnoException).code ?? null };
      if (job) job.recordingFailed(p);
      else early = p;
    };
    // The recording's thread may fall behind a flood: the job's output then waits, as for a slow client.
    const behind = (b: boolean) => job && (b ? job.pauseFor(job.recorder) : job.resumeFor(job.recorder));
    const recording = a.recording ? recordingThread().create(a.recording, header, startMs, a.recordingCap ?? Infinity, { problem, behind }) : undefined;
    try {
      const pty = ptySpawn(a.command, a.args, { name: a.env.TERM ?? 'xterm-256color', cols: a.cols, rows: a.rows, cwd: a.cwd, env: a.env, encoding: null });
      keepLastWords(pty);
      job = new HostJob(a.id, a.command, pty, ringBytes, recording, onEnd, a.clientCloses === true);
      job.recordingProblem = early;
      return job;
    } catch (e) {
      void recording?.close('spawn-failed', Date.now());
      throw e;
    }
  }

  get pid(): number {
    return this.pty.pid;
  }

  get exit(): JobExit | null {
    return this.exitInfo;
  }

  info(): JobInfo {
    return { id: this.id, pid: this.pid, command: this.command, startedAt: this.startedAt.toISOString(), outputBytes: this.ring.end, exit: this.exitInfo };
  }

  write(data: Buffer): void {
    if (this.exitInfo || data.length === 0) return;
    this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (this.exitInfo) return;
    this.pty.resize(cols, rows);
    this.recording?.resize(cols, rows, Date.now());
  }

  /** Signals the child only, and never after its exit: the pid may be someone else's by then. */
  kill(signal: string): void {
    if (!(signal in osConstants.signals)) throw new InputError(`unknown signal ${JSON.stringify(signal)}; expected a name like SIGTERM or SIGKILL`);
    if (this.exitInfo) return;
    this.pty.kill(signal);
  }

  private closeRecording(marker: string | null): Promise<void> {
    clearTimeout(this.closeTimer);
    const closed = this.recording?.close(marker, Date.now()) ?? Promise.resolve();
    this.recording = undefined;
    return closed;
  }

  private recordingFailed(p: RecordingProblem): void {
    this.recordingProblem = p;
    for (const s of this.sinks) s.problem(this, p);
  }

  /**
   * A client's input or marker in the recording, between the output before
   * and after it. `stop` before the exit suspends the recording (a full
   * disk); after it, it is the client's last word (its `exit:` marker, after
   * markers it still had for the job) and closes the file.
   */
  note(n: NoteArgs): null {
    // The last word goes after the tail of a capped recording, as the host's own exit marker would.
    if (n.stop && this.exitInfo && n.code === 'm') return void this.closeRecording(n.data), null;
    if (n.code === 'i') this.recording?.input(n.data, Date.now());
    else this.recording?.marker(n.data, Date.now());
    if (n.stop) this.recording?.suspend();
    return null;
  }

  pauseFor(sink: JobSink): void {
    if (this.pausers.size === 0 && !this.exitInfo) this.pty.pause();
    this.pausers.add(sink);
  }

  resumeFor(sink: JobSink): void {
    if (!this.pausers.delete(sink) || this.pausers.size > 0 || this.exitInfo) return;
    this.pty.resume();
  }

  private onOutput(data: Buffer): void {
    const offset = this.ring.end;
    this.ring.push(data);
    this.recording?.output(data, Date.now());
    for (const s of this.sinks) s.output(this, offset, data);
  }

  private onExit(exitCode: number, signal: number | undefined): void {
    const exit: JobExit = { exitCode, signal: signalName(signal), at: new Date().toISOString() };
    this.exitInfo = exit;
    // The shell's number for it (128 + the signal), as the daemon's own recordings say it.
    const marker = `exit:${signal ? 128 + signal : exitCode}`;
    // A client watching has markers of its own still to come (a transcript read to its end) and ends the file with its note; one that never does is not waited for long.
    if (this.clientCloses && this.sinks.size > 0 && this.recording) {
      this.closeTimer = setTimeout(() => void this.closeRecording(marker), LAST_NOTE_MS);
      this.announce(exit);
    } else {
      // Told once the file is whole: whoever reads the recording on the exit finds it finished.
      const sinks = [...this.sinks];
      void this.closeRecording(marker).then(() => this.announce(exit, sinks));
    }
  }

  private announce(exit: JobExit, sinks: readonly JobSink[] = [...this.sinks]): void {
    for (const s of sinks) s.exit(this, exit);
    this.onEnd(this);
    this.sinks.clear();
    this.pausers.clear();
  }
}

const SIGNAL_BY_NUMBER = new Map<number, string>();
for (const [name, num] of Object.entries(osConstants.signals).reverse()) SIGNAL_BY_NUMBER.set(num, name);

/** Aliases share a number; iterating the table backwards lets the first name (SIGABRT, not SIGIOT) win. */
function signalName(signal: number | undefined): string | null {
  if (!signal) return null;
  return SIGNAL_BY_NUMBER.get(signal) ?? `SIG${signal}`;
}

function checkSize(cols: number, rows: number): void {
  const whole = (n: unknown) => Number.isInteger(n) && (n as number) > 0 && (n as number) < 65536;
  if (!whole(cols) || !whole(rows)) throw new InputError(`terminal size ${cols}x${rows} is invalid; expected whole numbers of columns and rows from 1 to 65535`);
}

function checkDirectory(cwd: string): void {
  const isDir = (() => {
    try {
      return statSync(cwd).isDirectory();
    } catch {
      return undefined;
    }
  })();
  if (isDir === undefined) throw new InputError(`working directory ${JSON.stringify(cwd)} does not exist`);
  if (!isDir) throw new InputError(`working directory ${JSON.stringify(cwd)} is not a directory`);
}
