/** Wakes the watchdog at its next deadline: the only timer the live loop needs for it. */
import type { Clock } from '../core/clock.js';
import type { Watchdog } from '../core/watchdog.js';

export class DeadlineTimer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly wd: Watchdog,
    private readonly clock: Clock,
  ) {}

  /** Call after every observation: re-arms for whatever is due next. */
  arm(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const due = this.wd.nextDeadline();
    if (due === undefined) return;
    // +1 ms: a timer may fire a hair early, and tick() at due-1 would change nothing.
    const wait = Math.max(0, due - this.clock.now() + 1);
    this.timer = setTimeout(() => {
      this.wd.tick();
      this.arm();
    }, wait);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
