/** A watchdog on a manual clock, driven as the drill and the live loop drive it: every deadline on the way fires. */
import { ManualClock } from '../../src/core/clock.js';
import { Watchdog } from '../../src/core/watchdog.js';
import type { Signal, WatchdogConfig } from '../../src/core/watchdog-types.js';
import { shippedRules } from './rules.js';

export function driveWatchdog(config: Partial<WatchdogConfig> & Pick<WatchdogConfig, 'screenQuietMs' | 'toolGapMs' | 'settleMs'>) {
  const clock = new ManualClock(0);
  const wd = new Watchdog(shippedRules, clock, config as WatchdogConfig);
  wd.start();
  return { clock, wd, at: stepper(clock, wd) };
}

/** `at(t, s?)`: moves the clock to t, firing each deadline before it, then observes `s` (or ticks). */
export function stepper(clock: ManualClock, wd: Watchdog): (t: number, s?: Signal) => void {
  return (t, s) => {
    for (let d = wd.nextDeadline(); d !== undefined && d <= t; d = wd.nextDeadline()) {
      clock.set(d);
      wd.tick();
    }
    clock.set(t);
    if (s) wd.observe(s);
    else wd.tick();
  };
}
