/** Making the state directory (0700), with the refusals a person can fix said in one line. */
import { mkdirSync } from 'node:fs';
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
    const refusal = REFUSALS[(cause as NodeJS.ErrnoException).code ?? ''];
    if (refusal) throw new InputError(`${what} ${dir} ${refusal}; give --state a directory nightshift can create or use`, { cause });
    throw cause;
  }
}
