/** Making the state directory (0700), with the refusals a person can fix said in one line. */
import { mkdirSync, statSync } from 'node:fs';
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
    throw refused(dir, what, cause) ?? cause;
  }
}

function refused(dir: string, what: string, cause: unknown): InputError | null {
  const refusal = REFUSALS[(cause as NodeJS.ErrnoException).code ?? ''];
  return refusal ? new InputError(`${what} ${dir} ${refusal}; give --state a directory nightshift can create or use`, { cause }) : null;
}

/** For verbs that only look for a daemon: a --state that is a file is that, not "no daemon is running". */
export function stateDirProblem(dir: string, what = 'state directory'): InputError | null {
  try {
    if (!statSync(dir).isDirectory()) return refused(dir, what, Object.assign(new Error('not a directory'), { code: 'EEXIST' }));
    return null;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === 'ENOTDIR' ? refused(dir, what, cause) : null;
  }
}
