/**
 * A closing terminal must never end supervision: the daemon started with
 * `&` gets SIGHUP when its terminal goes, and Node's default is to exit,
 * which would leave every job unwatched until morning. SIGHUP is noted and
 * otherwise ignored (rules and policy already reload on edit). The terminal
 * gone, writes to stdout and stderr fail (EIO, EPIPE); they must not kill
 * the daemon either: its log file still gets every line.
 */
import type { Logger } from '../supervisor/logger.js';

export interface Hangup {
  /** The daemon's log, once it is open: a hang-up during start-up is logged then. */
  logTo(log: Logger): void;
}

export function surviveHangup(say: (line: string) => void): Hangup {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  let log: Logger | undefined;
  let missed = 0;
  const note = (l: Logger) => l.warn({ signal: 'SIGHUP' }, 'hung up on (SIGHUP): the terminal closed; supervision goes on');
  process.on('SIGHUP', () => {
    if (log) note(log);
    else missed++;
    say('hung up on (SIGHUP); supervision goes on');
  });
  return {
    logTo(l) {
      log = l;
      for (; missed > 0; missed--) note(l);
    },
  };
}
