/**
 * One process of a kind per state directory (the daemon, the PTY host): an
 * exclusively created lock file holding the owner's pid. A lock whose pid
 * is gone is stale and taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { InputError } from './errors.js';

export class PidLock {
  private constructor(readonly path: string) {}

  /** `holder` names the kind of process in the refusals ("another daemon … already runs"). */
  static acquire(path: string, holder: string): PidLock {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return new PidLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const owner = lockOwner(path);
        if (owner !== null && isAlive(owner)) {
          throw new InputError(`another ${holder} (pid ${owner}) already runs for this state directory (lock ${path})`);
        }
        // Stale: its owner died without cleaning up. Remove and retry the exclusive create.
        try {
          unlinkSync(path);
        } catch {
          /* someone else removed it first; the retry decides */
        }
      }
    }
    throw new InputError(`could not take the ${holder} lock ${path}`);
  }

  release(): void {
    try {
      if (lockOwner(this.path) === process.pid) unlinkSync(this.path);
    } catch {
      /* already gone */
    }
  }
}

export function lockOwner(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A dead process its parent has not reaped still answers kill(0). The PTY
 * host is detached, so once its daemon is gone its parent is whatever adopts
 * orphans, and in a container that may never reap: a killed host would hold
 * its lock forever. Linux only (/proc); elsewhere nothing is a zombie.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself hold ") ".
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
