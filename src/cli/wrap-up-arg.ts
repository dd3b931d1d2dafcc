/**
 * `--wrap-up 85%|off` for run and submit. Its own file: the check reads the
 * probe profiles' parser (zod, yaml), which the read-only verbs that share
 * common.ts must never load.
 */
import { InvalidArgumentError } from 'commander';
import { wrapUpShare } from '../supervisor/agent-option.js';

/** Checked here, carried as written. */
export function wrapUpArg(value: string): string {
  try {
    wrapUpShare(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return value;
}
