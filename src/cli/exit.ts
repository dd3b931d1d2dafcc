/** Exit codes and the one-line error form every verb shares. */
export { describeError } from '../util/errors.js';

/** `notRunning`: `status` found no daemon (as `systemctl status` says 3 for a unit that is not active). */
export const EXIT = { ok: 0, failed: 1, input: 2, notRunning: 3, internal: 70 } as const;
