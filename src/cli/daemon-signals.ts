/** What SIGTERM and SIGINT mean to a foreground daemon: drain, or (under a service manager) detach. */
import type { StopMode } from '../daemon/daemon-stop.js';

/**
 * drain: finish running jobs, a second signal stops them (a person at a
 * terminal). detach: exit at once and leave the jobs in the PTY host for the
 * next daemon, as `shutdown --detach` does: a service manager's stop or
 * restart, which kills the daemon after its timeout and must not take the
 * jobs with it.
 */
export const ON_SIGNAL = ['drain', 'detach'] as const;
export type OnSignal = (typeof ON_SIGNAL)[number];

interface Stoppable {
  stop(mode: StopMode): Promise<void>;
}

export interface SignalStop {
  /** Hands the started daemon over; a signal that came during start-up takes effect now. */
  attach(daemon: Stoppable): void;
}

/** Installs the handlers at once, so a signal during start-up is remembered, not fatal. */
export function stopOnSignals(onSignal: OnSignal, say: (line: string) => void): SignalStop {
  let signals = 0;
  let daemon: Stoppable | undefined;
  const mode = (): StopMode => (onSignal === 'detach' ? 'detach' : signals === 1 ? 'drain' : 'now');
  const handle = (sig: NodeJS.Signals) => {
    signals++;
    const m = mode();
    say(`${sig}: ${m === 'detach' ? 'detaching (jobs run on in the PTY host for the next daemon)' : m === 'drain' ? 'draining (signal again to stop running jobs)' : 'stopping running jobs'}`);
    if (daemon) void daemon.stop(m);
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
  return {
    attach(d) {
      daemon = d;
      if (signals > 0) void d.stop(mode());
    },
  };
}
