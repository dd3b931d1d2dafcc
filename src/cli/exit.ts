/** Exit codes and the one-line error form every verb shares. */
export { describeError } from '../util/errors.js';

export const EXIT = { ok: 0, failed: 1, input: 2, internal: 70 } as const;
