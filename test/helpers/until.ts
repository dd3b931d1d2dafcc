/**
 * Resolves with the value once `probe` returns something other than
 * undefined/false; rejects after `ms`. `what` may be a function, called only
 * on failure, to say what was seen instead.
 */
export async function until<T>(probe: () => T | undefined | false, ms: number, what: string | (() => string), every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`no ${typeof what === 'function' ? what() : what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
