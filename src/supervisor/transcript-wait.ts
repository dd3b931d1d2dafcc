/**
 * An agent job whose transcript never turns up runs blind: no probes, no
 * done-on-turn-end, nothing to say it loops. That must not pass in silence.
 * NO_TRANSCRIPT_MS after the job's first output (or after it became an agent
 * job, whichever is later), measured on the job's clock, the warning is
 * given once. The timer only wakes the check; the clock decides.
 */
import type { Clock } from '../core/clock.js';

export const NO_TRANSCRIPT_MS = 30_000;

export interface TranscriptWaitHost {
  /** The transcript is being followed. */
  found(): boolean;
  /** Says it: log, show, board, page. Called at most once. */
  warn(waitedMs: number): void;
}

export class TranscriptWait {
  private firstOutput: number | undefined;
  private agentSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(
    private readonly clock: Clock,
    private readonly host: TranscriptWaitHost,
    private readonly waitMs = NO_TRANSCRIPT_MS,
  ) {}

  /** The job printed something: the agent is up and should soon write its transcript. */
  output(): void {
    if (this.firstOutput !== undefined) return;
    this.firstOutput = this.clock.now();
    this.arm();
  }

  /** The job is an agent job from now on (at its start, or once its process tree shows one). */
  agent(): void {
    if (this.agentSince !== undefined) return;
    this.agentSince = this.clock.now();
    this.arm();
  }

  /** When the warning is due on the job's clock; undefined until both clocks started. */
  get dueAt(): number | undefined {
    if (this.firstOutput === undefined || this.agentSince === undefined) return undefined;
    return Math.max(this.firstOutput, this.agentSince) + this.waitMs;
  }

  /** Warns if due and still nothing; re-arms otherwise. Public so a test can drive a manual clock. */
  check(): void {
    const due = this.dueAt;
    if (this.finished || due === undefined) return;
    if (this.host.found()) return this.dispose();
    const left = due - this.clock.now();
    if (left > 0) return this.schedule(left);
    this.dispose();
    this.host.warn(this.clock.now() - (due - this.waitMs));
  }

  dispose(): void {
    this.finished = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    if (this.dueAt !== undefined) this.check();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    // Never a spin: a clock that trails the wall (a test's) is looked at again a little later.
    this.timer = setTimeout(() => this.check(), Math.max(ms, 250));
    this.timer.unref();
  }
}
