/** Samples a job's process tree on a timer and reports busy/idle and foreground changes. */
import { ProcActivity, type ProcActivityOptions } from '../core/proc-activity.js';
import type { Clock } from '../core/clock.js';
import { foregroundProcess, readProcessTree, summarizeTree, type ProcInfo } from '../pty/proctree.js';
import { readsTerminal } from '../pty/tty-read.js';

export interface SamplerEvents {
  busy(busy: boolean): void;
  /** The deepest process of the terminal's foreground group, by its /proc comm. */
  foreground(program: string | null): void;
  /** The foreground process started or stopped waiting in a terminal read. */
  ttyRead?(reading: boolean): void;
  /** Every tree read, for whoever else needs it (the agent spotter): one poller per job. */
  tree?(tree: readonly ProcInfo[]): void;
}

export class ProcSampler {
  private readonly activity: ProcActivity;
  private timer: NodeJS.Timeout | undefined;
  private lastForeground: string | null | undefined;
  private lastReading: boolean | undefined;

  constructor(
    private readonly rootPid: number,
    private readonly clock: Clock,
    private readonly events: SamplerEvents,
    options: Partial<ProcActivityOptions> = {},
  ) {
    this.activity = new ProcActivity(options);
  }

  start(everyMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Samples at once (a prompt just appeared: the responder must know who is in the foreground). */
  sampleNow(): void {
    this.sample();
  }

  private sample(): void {
    const tree = readProcessTree(this.rootPid);
    if (tree.length === 0) return;
    this.events.tree?.(tree);
    const fgProc = foregroundProcess(tree);
    const fg = fgProc?.comm ?? null;
    if (fg !== this.lastForeground) {
      this.lastForeground = fg;
      this.events.foreground(fg);
    }
    const reading = fgProc ? (readsTerminal(fgProc.pid, fgProc.state) ?? false) : false;
    if (reading !== this.lastReading) {
      this.lastReading = reading;
      this.events.ttyRead?.(reading);
    }
    const { busy, changed } = this.activity.observe(summarizeTree(tree, this.clock.now()));
    if (changed) this.events.busy(busy);
  }
}
