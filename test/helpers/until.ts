/**
 * waitUntil (./wait.ts) for a synchronous probe, polled every 100 ms:
 * `what` may be a function, called only on failure, to say what was seen
 * instead. One polling loop for every test.
 */
import { waitUntil } from './wait.js';

export function until<T>(probe: () => T | undefined | false, ms: number, what: string | (() => string), every = 100): Promise<T> {
  return typeof what === 'function' ? waitUntil(probe, ms, 'the condition', { every, describe: what }) : waitUntil(probe, ms, what, { every });
}
