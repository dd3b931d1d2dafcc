/**
 * When the morning digest is due: `notify.digest_at` in the daemon's time
 * zone (TZ), as quiet hours are, once a day. A pure deadline driven by the
 * caller's clock, like the watchdog's nextDeadline, so a night is tested
 * in virtual time.
 */
import { nextLocalTime } from './quiet-hours.js';

export class DigestSchedule {
  private due: number | undefined;

  /** `at`: minutes after local midnight, or null for no digest. Starting at `now`, the first is the next `at` after it. */
  constructor(
    private at: number | null,
    now: number,
  ) {
    this.due = at === null ? undefined : nextLocalTime(at, now);
  }

  nextDeadline(): number | undefined {
    return this.due;
  }

  /**
   * At `now`: the deadline that has come (then the next is a day on), else
   * undefined. A daemon asleep past several deadlines (a suspended laptop)
   * sends one digest, not one per missed day.
   */
  take(now: number): number | undefined {
    if (this.due === undefined || now < this.due || this.at === null) return undefined;
    const came = this.due;
    this.due = nextLocalTime(this.at, now);
    return came;
  }

  /** The config was reloaded: a changed time counts from `now`. */
  reconfigure(at: number | null, now: number): void {
    if (at === this.at) return;
    this.at = at;
    this.due = at === null ? undefined : nextLocalTime(at, now);
  }
}
