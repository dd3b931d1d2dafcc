/** Wakes the job's clocked parts (the watchdog, on_unanswered) at the next deadline of any: the only timer the live loop needs for them. */
import type { Clock } from '../core/clock.js';

/** Something pure that says when it next needs the time, and acts then. */
export interface DeadlineSource {
  nextDeadline(): number | undefined;
  tick(): void;
}

export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
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

  /** Call after every observation: re-arms for whatever is due next. */
  arm(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const dues = this.sources.map((s) => s.nextDeadline()).filter((d): d is number => d !== undefined);
    if (dues.length === 0) return;
    // +1 ms: a timer may fire a hair early, and tick() at due-1 would change nothing.
    const wait = Math.max(0, Math.min(...dues) - this.clock.now() + 1);
    this.timer = setTimeout(() => {
      this.before?.();
      for (const s of this.sources) s.tick();
      this.arm();
    }, wait);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
