/** Waiting in tests: by polling with a deadline, never by fixed sleeps; and what a poll asks (a free port, a live pid). */
import { createServer as createNetServer, type AddressInfo } from 'node:net';

/** Polls `probe` until it returns something other than undefined/false; rejects after `ms` with `what` and the last probe note. */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms: number,
  what: string,
  opts: { every?: number; describe?: () => Promise<string> | string } = {},
): Promise<T> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      let note = '';
      try {
        note = opts.describe ? `\n${await opts.describe()}` : '';
      } catch (e) {
        note = `\n(describe failed: ${String(e)})`;
      }
      const err = lastError ? `\nlast error: ${String(lastError)}` : '';
      throw new Error(`timed out after ${ms} ms waiting for ${what}${err}${note}`);
    }
    await new Promise((r) => setTimeout(r, opts.every ?? 150));
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (right now). */
export async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Whether a pid is a live process (a zombie, dead but not reaped, counts as gone): the daemon's own check. */
export { isAlive as processAlive } from '../../src/daemon/lock.js';
