/** One daemon per state directory: the pid lock in its run directory. */
import { isAlive, lockOwner, PidLock } from '../util/pid-lock.js';
import { daemonPaths } from './paths.js';

export { isAlive, lockOwner };

export type DaemonLock = PidLock;
export const DaemonLock = {
  acquire: (path: string): DaemonLock => PidLock.acquire(path, 'daemon'),
};

/** The pid of the daemon that holds `stateDir` now, or null: no lock, or its owner is gone. Reads only; starts nothing. */
export function runningDaemonPid(stateDir: string): number | null {
  const pid = lockOwner(daemonPaths(stateDir).lock);
  return pid !== null && isAlive(pid) ? pid : null;
}
