/** Wakes the job's clocked parts (the watchdog, on_unanswered) at the next deadline of any: the only timer the live loop needs for them. */
import type { Clock } from '../core/clock.js';

/** Something pure that says when it next needs the time, and acts then. */
export interface DeadlineSource {
  nextDeadline(): number | undefined;
  tick(): void;
}

export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
  /** The deadline the timer is set for. */
  private armedFor = 0;
  private stopped = false;
  private readonly sources: readonly DeadlineSource[];

  /** `before` runs just before the sources are ticked: a reading the decision needs (a fresh /proc sample). */
  constructor(
    sources: DeadlineSource | readonly DeadlineSource[],
    private readonly clock: Clock,
    private readonly before?: () => void,
  ) {
    this.sources = Array.isArray(sources) ? sources : [sources as DeadlineSource];
  }

  /**
   * Call after every observation: arms for whatever is due next. A timer
   * already set for that time or earlier is kept (output moves deadlines
   * later or leaves them, on every chunk of a flood): fired early, it ticks
   * sources with nothing due yet, which changes nothing, and arms again.
   */
  arm(): void {
    if (this.stopped) return;
    let due: number | undefined;
    for (const s of this.sources) {
      const d = s.nextDeadline();
      if (d !== undefined && (due === undefined || d < due)) due = d;
    }
    if (due !== undefined && this.timer && this.armedFor <= due) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (due === undefined) return;
    this.armedFor = due;
    // +1 ms: a timer may fire a hair early, and tick() at due-1 would change nothing.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.before?.();
      for (const s of this.sources) s.tick();
      this.arm();
    }, Math.max(0, due - this.clock.now() + 1));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
