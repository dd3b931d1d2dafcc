/** Exit codes and the one-line error form every verb shares. */
import { InputError } from '../util/errors.js';

export const EXIT = { ok: 0, failed: 1, input: 2, internal: 70 } as const;

export function describeError(e: unknown): string {
  if (e instanceof InputError) return e.toString();
  return e instanceof Error ? e.message : String(e);
}
