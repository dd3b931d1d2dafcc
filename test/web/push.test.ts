/**
 * News without polling, against a real daemon on `--http 127.0.0.1:PORT`
 * and in Debian's headless Chromium: the board updates from the server's
 * event stream (no request but the one each event asks for), answers
 * compressed and 304 when unchanged, fetches nothing in a hidden tab (a new
 * blocked job raises a notification there instead, and a tap on it opens
 * the job), shows the blocked jobs first with their question and wait, and
 * has a filter, a "needs me" switch and a sign-out; "Notify me" asks for
 * the browser's permission once, on a tap. With the stream refused, the
 * board is read every 45 s (the page's clock run forward by playwright).
 */
import type { Page, Request } from 'playwright-core';
import { describe, expect, it, type TestContext } from 'vitest';
import { browsers, DESKTOP, pageErrors, PHONE } from '../helpers/browser.js';
import { token } from '../helpers/web-api.js';
import { webDaemon } from '../helpers/web-session.js';
import { testScopes } from '../helpers/daemon.js';

const scope = testScopes();
const browser = browsers();

const ask = (q: string) => ['bash', '-c', `read -p "${q} [y/N] " a; [ "$a" = y ]`];
/** A job that keeps printing, so the watchdog never takes it for hung. */
const SLEEPER = ['bash', '-c', 'while :; do echo tick; sleep 1; done'];

/** The board's reads (GET /api/v1/jobs) the page makes from now on. */
function boardReads(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/jobs') seen.push(r);
  });
  return seen;
}

/** Every board version the page heard on its event stream, collected in the page. */
const HEARD = `new MutationObserver(() => (window.__heard ??= []).push(document.documentElement.dataset.boardVersion)).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-board-version'] });`;
const heard = (page: Page) => page.evaluate(() => ((window as unknown as { __heard?: string[] }).__heard ?? []).length);

/** Notifications the page raises, kept (with their onclick) instead of shown. */
const CAPTURE_NOTIFICATIONS = `
  const Real = window.Notification;
  window.__notes = [];
  window.Notification = class { constructor(title, o) { this.title = title; this.body = o?.body; window.__notes.push(this); }
    static get permission() { return Real.permission; } static requestPermission() { return Real.requestPermission(); } };`;

/** Makes the tab hidden (or visible again) as the browser would: document.hidden and a visibilitychange. */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((h) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);

const row = (name: string, state?: string) => `li[data-job="${name}"]${state ? `[data-state="${state}"]` : ''}`;

/** A daemon running one job and a board open on it, signed in as `role`, that has heard the stream's first news. */
async function boardOpen(ctx: TestContext, role: string, viewport: typeof PHONE | typeof DESKTOP, init: string) {
  const d = await webDaemon(scope, ctx);
  await d.submit('sleeper', SLEEPER);
  await d.waitState('sleeper', 'running', undefined, 20_000);
  const who = await token(d, 'pat', role);
  const page = await browser.page(viewport);
  const errors = pageErrors(page);
  await page.context().grantPermissions(['notifications'], { origin: d.web! });
  await page.addInitScript(init);
  await page.goto(who.login_url!);
  await page.waitForSelector(row('sleeper', 'running'));
  await page.waitForFunction(() => (window as unknown as { __heard?: string[] }).__heard?.length);
  return { d, page, errors };
}

describe('the board over HTTP', () => {
  it('answers the board and a job compressed, with an ETag, and 304 with no body when nothing changed', async (ctx) => {
    const d = await webDaemon(scope, ctx);
    await d.submit('sleeper', SLEEPER);
    await d.waitState('sleeper', 'running', undefined, 20_000);
    const { token: bearer } = await token(d, 'robot', 'viewer');
    const auth = { authorization: `Bearer ${bearer}`, 'accept-encoding': 'br, gzip' };
    for (const path of ['/api/v1/jobs', '/api/v1/jobs/sleeper']) {
      const first = await fetch(d.web + path, { headers: auth });
      expect(first.status).toBe(200);
      expect(first.headers.get('content-encoding'), path).toMatch(/^(br|gzip)$/);
      const tag = first.headers.get('etag');
      expect(tag, path).toMatch(/^"[\w-]+"$/);
      await first.text();
      const again = await fetch(d.web + path, { headers: { ...auth, 'if-none-match': tag! } });
      expect(again.status, path).toBe(304);
      expect(await again.text()).toBe('');
    }
    const page = await fetch(`${d.web}/assets/board.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(page.headers.get('content-encoding')).toBe('gzip');
    // The stream is for the signed-in only, viewers included.
    expect((await fetch(`${d.web}/api/v1/events`)).status).toBe(401);
  }, 60_000);
});

describe('the board in Chromium', () => {
  it('on a phone: a job that blocks appears with its question and wait, from the pushed news, with no poll between', async (ctx) => {
    const { d, page, errors } = await boardOpen(ctx, 'viewer', PHONE, HEARD);

    const reads = boardReads(page);
    const before = await heard(page);
    await d.submit('cache', ask('Delete the cache?'));
    await d.waitState('cache', 'blocked', 'prompt', 20_000);
    await page.waitForSelector(`${row('cache', 'blocked')} .job-question`);
    expect(await page.textContent(`${row('cache')} .job-question`)).toContain('Delete the cache?');
    expect(await page.textContent(`${row('cache')} .job-waited`)).toMatch(/^blocked for /);
    expect(await page.textContent(`${row('cache')} .job-reason`)).toBe('waiting at a question');
    // Each read of the board followed a pushed change: nothing was fetched on a timer.
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThanOrEqual((await heard(page)) - before);
    await browser.screenshot(page, 'board-phone');
    expect(errors).toEqual([]);
  }, 90_000);

  it('on a desk: a hidden tab fetches nothing, raises a notification for a new blocked job that opens it, and reads the board once on return', async (ctx) => {
    const { d, page, errors } = await boardOpen(ctx, 'operator', DESKTOP, HEARD + CAPTURE_NOTIFICATIONS);

    await setHidden(page, true);
    const reads = boardReads(page);
    await d.submit('deploy', ask('Deploy to production?'));
    await d.waitState('deploy', 'blocked', 'prompt', 20_000);
    await page.waitForFunction(() => (window as unknown as { __notes: unknown[] }).__notes.length > 0, undefined, { timeout: 10_000 });
    const notes = await page.evaluate(() => (window as unknown as { __notes: { title: string; body: string }[] }).__notes.map((n) => ({ title: n.title, body: n.body })));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.title).toBe('deploy needs you');
    expect(notes[0]!.body).toContain('Deploy to production?');
    expect(reads, 'a hidden tab reads nothing').toHaveLength(0);
    expect(await page.$(row('deploy'))).toBeNull();

    await setHidden(page, false);
    await page.waitForSelector(row('deploy', 'blocked'));
    expect(reads).toHaveLength(1);
    await browser.screenshot(page, 'board-desktop');

    await Promise.all([page.waitForURL(/\/jobs\/deploy$/), page.evaluate(() => (window as unknown as { __notes: { onclick: () => void }[] }).__notes[0]!.onclick())]);
    expect(errors).toEqual([]);
  }, 90_000);

  it('with the news stream refused (a proxy answering 502), looks at the board every 45 s, and not before', async (ctx) => {
    const d = await webDaemon(scope, ctx);
    await d.submit('sleeper', SLEEPER);
    await d.waitState('sleeper', 'running', undefined, 20_000);
    const who = await token(d, 'pat', 'viewer');
    const page = await browser.page(DESKTOP);
    const errors = pageErrors(page);
    let refused = 0;
    await page.route('**/api/v1/events', (r) => {
      refused++;
      return r.fulfill({ status: 502, body: 'bad gateway' });
    });
    // Time stands still but for runFor: the machine's speed (a slow submit below) does not move the page's 45 s.
    await page.clock.install({ time: 1_000_000_000_000 });
    await page.clock.pauseAt(1_000_000_001_000);
    await page.goto(who.login_url!);
    await page.waitForSelector(row('sleeper', 'running'));
    await expect.poll(() => refused).toBeGreaterThan(0);

    const reads = boardReads(page);
    await d.submit('late', ask('Late question?'));
    await d.waitState('late', 'blocked', 'prompt', 20_000);
    await page.clock.runFor(44_000);
    expect(reads, 'no look before the fallback is due').toHaveLength(0);
    expect(await page.$(row('late'))).toBeNull();

    await page.clock.runFor(1_000);
    await page.waitForSelector(`${row('late', 'blocked')} .job-question`, { timeout: 10_000 });
    expect(reads).toHaveLength(1);
    // The stream is tried again on the same beat, not in a tight loop.
    expect(refused).toBe(2);
    expect(errors.filter((e) => !e.includes('status of 502'))).toEqual([]);
  }, 90_000);

  it('puts the blocked jobs first, oldest first; filters by words and by "needs me"; signs out', async (ctx) => {
    const d = await webDaemon(scope, ctx);
    await d.submit('older', ask('First question?'));
    await d.waitState('older', 'blocked', 'prompt', 20_000);
    await d.submit('sleeper', SLEEPER);
    await d.waitState('sleeper', 'running', undefined, 20_000);
    await d.submit('newer', ask('Second question?'));
    await d.waitState('newer', 'blocked', 'prompt', 20_000);
    const op = await token(d, 'otto', 'operator');
    const page = await browser.page(PHONE);
    const errors = pageErrors(page);
    await page.goto(op.login_url!);
    await page.waitForSelector(row('newer', 'blocked'));
    const names = () => page.$$eval('#jobs li[data-job]', (lis) => lis.map((li) => li.getAttribute('data-job')));
    expect(await names()).toEqual(['older', 'newer', 'sleeper']);

    await page.fill('#filter', 'echo tick');
    await page.waitForFunction(() => document.querySelectorAll('#jobs li[data-job]').length === 1);
    expect(await names()).toEqual(['sleeper']);
    await page.fill('#filter', 'blocked');
    await page.waitForFunction(() => document.querySelectorAll('#jobs li[data-job]').length === 2);
    await page.fill('#filter', '');
    await page.click('#needs-me');
    await page.waitForFunction(() => document.querySelectorAll('#jobs li[data-job]').length === 2);
    expect(await names()).toEqual(['older', 'newer']);

    await page.click('#sign-out');
    await page.waitForSelector('#token');
    const me = await page.evaluate(async () => (await fetch('/api/v1/me')).status);
    expect(me).toBe(401);
    expect(errors).toEqual([]);
  }, 90_000);

  it('offers "Notify me" while the browser was never asked, asks on a tap, and not again once answered', async (ctx) => {
    const d = await webDaemon(scope, ctx);
    const who = await token(d, 'nia', 'viewer');
    // Unasked, in this browser context: headless Chromium answers the request itself (denied), as a person might.
    const page = await browser.page(PHONE);
    const errors = pageErrors(page);
    await page.goto(who.login_url!);
    await page.waitForSelector('#notify:not([hidden])');
    expect(await page.evaluate(() => Notification.permission)).toBe('default');
    await page.click('#notify');
    await page.waitForSelector('#notify', { state: 'hidden' });
    expect(await page.evaluate(() => Notification.permission)).toBe('denied');
    await page.reload();
    await page.waitForSelector('#jobs');
    expect(await page.isHidden('#notify'), 'answered once: not offered again').toBe(true);

    // Allowed already (another person, another browser): nothing to offer. A sign-in link works once.
    const other = await token(d, 'ola', 'viewer');
    const allowed = await browser.page(DESKTOP);
    await allowed.context().grantPermissions(['notifications'], { origin: d.web! });
    await allowed.goto(other.login_url!);
    await allowed.waitForSelector('#jobs');
    expect(await allowed.isHidden('#notify')).toBe(true);
    expect(errors).toEqual([]);
  }, 60_000);
});
