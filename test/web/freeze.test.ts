/**
 * Output that froze the page: `ls` of macOS-made Japanese file names (NFD
 * kana with combining marks) and wide CJK on long lines, 0.9 MB of it, arriving while a
 * person has the job page open, and then a [y/N] question. With xterm's
 * screen-reader mode on, the main thread was held for minutes and nobody
 * could tap. The page's own stall probe (a 50 ms timer) must never see a
 * gap over 5 s (the old page: over 20 s), and a tap on Decline answers the
 * question. Phone and laptop viewports; a real daemon and job.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browsers, DESKTOP, pageErrors, PHONE } from '../helpers/browser.js';
import { testScopes } from '../helpers/daemon.js';
import { maxGap, resetGap, stallProbe, waitText, webDaemon } from '../helpers/web-session.js';
import { token } from '../helpers/web-api.js';

const scope = testScopes();
const browser = browsers();

/** A generous bound: the old page held the thread for minutes. */
const STALL_BOUND_MS = 5_000;
const BURST_BYTES = 900_000;

/**
 * Ten lines of 90 KB each (wrapped on screen): file names of NFD kana (base +
 * combining dakuten/handakuten) and wide kanji, as `ls` on one line prints
 * them. Few line feeds is what made xterm's screen-reader live region grow
 * with every character and freeze the page.
 */
const BURST_JS = `
const name = 'ガギグゲゴ_パピプペポ_ダヂヅデド'.normalize('NFD') + '_日本語の資料_漢字.txt';
let line = '', n = 0;
while (Buffer.byteLength(line) < ${BURST_BYTES} / 10) line += (n++) + ' ' + name + '  ';
for (let i = 0; i < 10; i++) process.stdout.write(line + '\\r\\n');
`;

/** Waits for `dir`/go, prints the burst, then asks. */
function job(dir: string): string[] {
  const script = path.join(dir, 'burst.cjs');
  writeFileSync(script, BURST_JS);
  return ['bash', '-c', `while [ ! -e "$1/go" ]; do sleep 0.2; done; "$2" "$3"; read -p "Delete the cache? [y/N] " a; echo "got:$a"`, 'job', dir, process.execPath, script];
}

describe('a 0.9 MB burst of wide and combining characters on the open job page', () => {
  for (const [label, viewport] of [['phone', PHONE], ['laptop', DESKTOP]] as const) {
    it(`never holds the main thread over 5 s, and a tap on Decline answers the question that follows (${label})`, async (ctx) => {
      const d = await webDaemon(scope, ctx);
      await d.submit('ls-ja', job(d.state));
      const alice = await token(d, 'alice');
      const page = await browser.page(viewport);
      const errors = pageErrors(page);
      await stallProbe(page);
      await page.goto(alice.login_url!);
      await waitText(page, '#who', 'Signed in as alice');
      await page.goto(`${d.web}/jobs/ls-ja`);
      await waitText(page, '#term-status', 'live');

      await resetGap(page);
      writeFileSync(path.join(d.state, 'go'), '');
      await d.waitState('ls-ja', 'blocked', 'prompt', 60_000);
      await waitText(page, '#term-text', 'Delete the cache? [y/N]', 60_000);
      const decline = page.locator('button[data-choice="decline"]:enabled');
      await decline.waitFor({ timeout: 30_000 });
      if (viewport === PHONE) await decline.tap();
      else await decline.click();
      await waitText(page, '#act-ok', 'human:alice@web', 30_000);
      await d.waitState('ls-ja', 'done', undefined, 15_000);
      await waitText(page, '#term-text', 'got:n', 30_000);

      const gap = await maxGap(page);
      ctx.annotate(`worst main-thread gap (${label}): ${Math.round(gap)} ms`);
      expect(gap).toBeLessThan(STALL_BOUND_MS);
      expect(errors).toEqual([]);
    }, 240_000);
  }
});
