/**
 * Where a daemon lives inside its state directory. The socket sits in a
 * private 0700 directory (tmux's rule): whoever can reach the socket can
 * drive every job, so the directory must be ours and closed to others.
 */
import { join } from 'node:path';
import { makeRunDir, runDirOf } from '../util/state-dir.js';

export interface DaemonPaths {
  readonly stateDir: string;
  readonly runDir: string;
  readonly socket: string;
  readonly lock: string;
  readonly log: string;
  /** Every web action, one JSON line each (src/people/audit.ts). */
  readonly webAudit: string;
}

export function daemonPaths(stateDir: string): DaemonPaths {
  const runDir = runDirOf(stateDir);
  return {
    stateDir,
    runDir,
    socket: join(runDir, 'nightshift.sock'),
    lock: join(runDir, 'daemon.lock'),
    // pino-roll numbers the files: daemon.1.log, daemon.2.log, … (highest is current).
    log: join(stateDir, 'daemon.log'),
    webAudit: join(stateDir, 'web-audit.jsonl'),
  };
}

/** Creates the run directory 0700, or refuses one that is not ours or is open to others. */
export function ensureRunDir(p: DaemonPaths): void {
  makeRunDir(p.stateDir, p.runDir);
}
