import type { Clock } from '../core/clock.js';

/**
 * Milliseconds since the epoch that never run backwards: the wall clock read
 * once, then advanced by the monotonic timer (NTP steps do not fake a hang).
 */
export class SystemClock implements Clock {
  private readonly origin = Date.now() - performance.now();
  now(): number {
    return Math.floor(this.origin + performance.now());
  }
}
