/**
 * Time as the core sees it: milliseconds on a monotonic-enough line.
 * Live runs pass a wall clock; drills pass the recording's own time, so the
 * same watchdog runs eight hours of recording in a blink.
 */
export interface Clock {
  now(): number;
}

/** A clock the caller moves by hand (drills and tests). */
export class ManualClock implements Clock {
  private t: number;
  constructor(start = 0) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  set(t: number): void {
    if (t < this.t) throw new RangeError(`clock cannot go back: ${t} < ${this.t}`);
    this.t = t;
  }
}
