/**
 * A real daemon with its web view on a free port (tokens: web-api.ts token),
 * and waiting on the page's own updates: the pieces the browser tests of
 * the job page share.
 */
import type { Page } from 'playwright-core';
import type { TestContext } from 'vitest';
export { waitText } from './browser.js';
import { freePort, type DaemonProc, type Scope } from './daemon.js';

/** A daemon serving the web view on 127.0.0.1 (extra daemon flags after). */
export async function webDaemon(scope: (ctx: TestContext) => Scope, ctx: TestContext, flags: readonly string[] = []): Promise<DaemonProc> {
  const s = scope(ctx);
  const d = await s.daemon(s.stateDir(), ['--http', `127.0.0.1:${await freePort()}`, ...flags]);
  if (!d.web) throw new Error('the daemon printed no web address');
  return d;
}

/**
 * Installed before the page's scripts: a timer every 50 ms records the
 * longest gap between its ticks (`window.__maxGap`, ms): how long the main
 * thread was held. `resetGap(page)` starts a new measure.
 */
export async function stallProbe(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __maxGap: number; __last: number };
    w.__maxGap = 0;
    w.__last = performance.now();
    setInterval(() => {
      const now = performance.now();
      w.__maxGap = Math.max(w.__maxGap, now - w.__last);
      w.__last = now;
    }, 50);
  });
}
export const resetGap = (page: Page): Promise<void> => page.evaluate(() => void ((window as unknown as { __maxGap: number }).__maxGap = 0));
export const maxGap = (page: Page): Promise<number> => page.evaluate(() => (window as unknown as { __maxGap: number }).__maxGap);
