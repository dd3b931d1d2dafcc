/** Samples a job's process tree on a timer and reports busy/idle changes. */
import { ProcActivity, type ProcActivityOptions } from '../core/proc-activity.js';
import type { Clock } from '../core/clock.js';
import { readProcessTree, summarizeTree } from '../pty/proctree.js';

export class ProcSampler {
  private readonly activity: ProcActivity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rootPid: number,
    private readonly clock: Clock,
    private readonly onChange: (busy: boolean) => void,
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

  private sample(): void {
    const tree = readProcessTree(this.rootPid);
    if (tree.length === 0) return;
    const { busy, changed } = this.activity.observe(summarizeTree(tree, this.clock.now()));
    if (changed) this.onChange(busy);
  }
}
