/**
 * Which screens are new. A screen that only cycles through states it
 * showed in the last few minutes (a blinking bullet, spinner frames, a
 * countdown that starts over, "Retrying in 10s… 1s") shows nothing new:
 * for the watchdog it is quiet. New lines, a bar or a percentage that
 * advances, new file names and test dots are new states, so progress.
 */

/** How far back a screen state counts as already seen: longer than any retry loop's cycle we have met (10–60 s). */
export const NOVELTY_WINDOW_MS = 5 * 60_000;
/** Enough for a 10-value countdown × 10 spinner frames several times over; a streaming log only ever adds. */
const MAX_STATES = 2_048;

export class ScreenNovelty {
  /** Fingerprint → when it was last on screen; Map order is oldest first. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly windowMs = NOVELTY_WINDOW_MS) {}

  /** Records `fingerprint` on screen at `now`; true when it was not seen within the window. */
  observe(fingerprint: string, now: number): boolean {
    const last = this.seen.get(fingerprint);
    this.seen.delete(fingerprint);
    this.seen.set(fingerprint, now);
    this.prune(now);
    return last === undefined || now - last > this.windowMs;
  }

  private prune(now: number): void {
    for (const [fp, t] of this.seen) {
      if (this.seen.size <= MAX_STATES && now - t <= this.windowMs) break;
      this.seen.delete(fp);
    }
  }
}
