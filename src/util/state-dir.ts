/** Making the state directory (0700), with the refusals a person can fix said in one line. */
import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from './errors.js';

const REFUSALS: Readonly<Record<string, string>> = {
  EEXIST: 'is a file, not a directory',
  ENOTDIR: 'is inside a file, not a directory',
  EACCES: 'cannot be created: permission denied',
  EPERM: 'cannot be created: operation not permitted',
  EROFS: 'is on a read-only file system',
};

/** Creates `dir` (and its parents) 0700 if missing; InputError when the path cannot be a directory of ours. */
export function makeStateDir(dir: string, what = 'state directory'): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (cause) {
    throw refused(dir, what, (cause as NodeJS.ErrnoException).code, cause) ?? cause;
  }
}

function refused(dir: string, what: string, code: string | undefined, cause?: unknown): InputError | null {
  const refusal = REFUSALS[code ?? ''];
  return refusal ? new InputError(`${what} ${dir} ${refusal}; give --state a directory nightshift can create or use`, cause === undefined ? undefined : { cause }) : null;
}

/** For verbs that only look for a daemon: a --state that is a file is that, not "no daemon is running". */
export function stateDirProblem(dir: string, what = 'state directory'): InputError | null {
  try {
    if (!statSync(dir).isDirectory()) return refused(dir, what, 'EEXIST');
    return null;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code === 'ENOTDIR' ? refused(dir, what, code, cause) : null;
  }
}

/** The private directory inside a state directory that holds the daemon's and the PTY host's sockets and locks. */
export const runDirOf = (stateDir: string): string => join(stateDir, 'run');

/**
 * Creates the run directory 0700, or refuses one that is not ours or is open
 * to others (tmux's rule): whoever can reach a socket in it drives every job.
 */
export function makeRunDir(stateDir: string, runDir = runDirOf(stateDir)): void {
  makeStateDir(stateDir);
  makeStateDir(runDir, 'run directory');
  const info = lstatSync(runDir);
  if (!info.isDirectory()) throw new InputError(`${runDir} is not a directory`);
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    throw new InputError(`${runDir} belongs to uid ${info.uid}, not to you; refusing to put the control socket there`);
  }
  if ((info.mode & 0o077) !== 0) chmodSync(runDir, 0o700);
}
