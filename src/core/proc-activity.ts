import { InputError } from '../util/errors.js';

/**
 * One reading of a job's process tree: summed CPU ticks and storage I/O
 * bytes of every live process, and which pids there were (src/pty's
 * summarizeTree makes it from /proc).
 */
export interface TreeSample {
  readonly t: number;
  readonly cpuTicks: number;
  readonly ioBytes: number;
  readonly pids: readonly number[];
  /**
   * The root process's name (comm), when known. A change is an exec: the
   * first reading can land between the supervisor's fork and the exec of
   * the job's program, and the disk reads of loading that program are
   * start-up, not work. Its CPU still counts: a program that computes from
   * its first instant is busy at the first reading after its exec.
   */
  readonly root?: string;
}

export interface ProcActivityOptions {
  /** CPU use, as a fraction of one core, that counts as busy. */
  busyCpuFraction: number;
  /** Clock ticks per second of cpuTicks (Linux USER_HZ). */
  ticksPerSecond: number;
  /** How far back activity is remembered, in ms. */
  windowMs: number;
}

export const DEFAULT_PROC_ACTIVITY: Readonly<ProcActivityOptions> = {
  busyCpuFraction: 0.05,
  ticksPerSecond: 100,
  windowMs: 2000,
};

/** What happened between two consecutive samples. */
interface Step {
  readonly t: number;
  readonly dt: number;
  readonly cpuTicks: number;
  readonly ioBytes: number;
  readonly spawned: boolean;
}

/**
 * Tells whether a job's processes are doing work (compiling, testing,
 * downloading) even when its screen is still.
 */
export class ProcActivity {
  private readonly opts: ProcActivityOptions;
  private prev: TreeSample | undefined;
  private prevPids = new Set<number>();
  private steps: Step[] = [];
  private busy = false;

  constructor(options: Partial<ProcActivityOptions> = {}) {
    this.opts = { ...DEFAULT_PROC_ACTIVITY, ...options };
    checkOptions(this.opts);
  }

  /**
   * Busy when, over the last window, CPU grew by at least busyCpuFraction of
   * the wall time, storage I/O grew at all (but across the root's exec),
   * or a new process appeared. The first sample is only a baseline.
   * `changed` is relative to the last call.
   */
  observe(sample: TreeSample): { busy: boolean; changed: boolean } {
    if (this.prev !== undefined) this.addStep(this.prev, sample);
    this.prev = sample;
    this.prevPids = new Set(sample.pids);
    this.trim(sample.t);
    const busy = this.windowBusy();
    const changed = busy !== this.busy;
    this.busy = busy;
    return { busy, changed };
  }

  private addStep(prev: TreeSample, cur: TreeSample): void {
    // A child that exits takes its ticks and bytes out of the sum; that drop
    // is not negative work, so deltas are floored at zero.
    this.steps.push({
      t: cur.t,
      dt: Math.max(0, cur.t - prev.t),
      cpuTicks: Math.max(0, cur.cpuTicks - prev.cpuTicks),
      ioBytes: cur.root !== prev.root ? 0 : Math.max(0, cur.ioBytes - prev.ioBytes),
      spawned: cur.pids.some((pid) => !this.prevPids.has(pid)),
    });
  }

  /** Keeps the steps ending inside the window, and always the latest one. */
  private trim(now: number): void {
    const from = now - this.opts.windowMs;
    let keep = 0;
    while (keep < this.steps.length - 1 && this.steps[keep]!.t <= from) keep++;
    if (keep > 0) this.steps = this.steps.slice(keep);
  }

  private windowBusy(): boolean {
    let dt = 0;
    let cpu = 0;
    for (const s of this.steps) {
      if (s.spawned || s.ioBytes > 0) return true;
      dt += s.dt;
      cpu += s.cpuTicks;
    }
    const needed = (this.opts.busyCpuFraction * dt * this.opts.ticksPerSecond) / 1000;
    // cpu > 0 keeps a zero threshold (or zero elapsed time) from calling an idle tree busy.
    return cpu > 0 && cpu >= needed;
  }
}

function checkOptions(o: ProcActivityOptions): void {
  if (!Number.isFinite(o.busyCpuFraction) || o.busyCpuFraction < 0) {
    throw new InputError(`busyCpuFraction ${o.busyCpuFraction} is invalid; expected a number >= 0 (fraction of one core)`);
  }
  if (!Number.isFinite(o.ticksPerSecond) || o.ticksPerSecond <= 0) {
    throw new InputError(`ticksPerSecond ${o.ticksPerSecond} is invalid; expected a number > 0`);
  }
  if (!Number.isFinite(o.windowMs) || o.windowMs <= 0) {
    throw new InputError(`windowMs ${o.windowMs} is invalid; expected a number of milliseconds > 0`);
  }
}
