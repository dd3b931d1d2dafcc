/**
 * The web view in a real browser (Debian's headless Chromium), against a
 * real daemon on `--http 127.0.0.1:PORT` with a real job blocked at a
 * `[y/N]` question (rule generic-yes-no: answer y Enter, decline n Enter).
 * A person opens a login URL on a phone, sees the question on the live
 * terminal, declines it, and the job ends; the evidence says who. Each
 * test has its own state directory, socket, port and browser context.
 * Screenshots at phone and desktop size go to .tmp/screenshots/ (NIGHTSHIFT_SCREENSHOTS=docs/screenshots refreshes the README's).
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { browsers, DESKTOP, pageErrors, PHONE, waitText } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { freePort, testScopes, type DaemonProc } from '../helpers/daemon.js';

const scope = testScopes();
const browser = browsers();

const JOB = 'clean-cache';
/** Lists a folder first so the screen has more than the question, then asks. */
const ASK = ['bash', '-c', 'echo "cleaning the build cache"; ls -1 /usr | head -5; read -p "Delete the cache? [y/N] " a; echo "got:$a"; [ "$a" = y ]'];

interface Token {
  name: string;
  token: string;
  login_url: string;
  role: string;
}

async function webDaemon(ctx: TestContext): Promise<{ d: DaemonProc; base: string }> {
  const s = scope(ctx);
  const d = await s.daemon(s.stateDir(), ['--http', `127.0.0.1:${await freePort()}`]);
  if (!d.web) throw new Error('the daemon printed no web address');
  return { d, base: d.web };
}

/** `nightshift web SUB … --state DIR` (the subcommand takes the flag). */
const web = (d: DaemonProc, sub: string, args: readonly string[]) => runCli(['web', sub, ...args, '--state', d.state], { env: { NIGHTSHIFT_STATE: undefined }, ms: 20_000 });

async function token(d: DaemonProc, name: string, role = 'operator'): Promise<Token> {
  const r = await web(d, 'token', [name, '--role', role, '--json']);
  if (r.code !== 0) throw new Error(`web token ${name} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Token;
}

/** Submits the [y/N] job and waits until the daemon holds it blocked on the question. */
async function blockedJob(d: DaemonProc): Promise<void> {
  await d.submit(JOB, ASK);
  await d.waitState(JOB, 'blocked', 'prompt', 20_000);
}

const TERMINAL = '#term-text';

describe('the web page on a phone (390×844)', () => {
  it('opens a login URL signed in, shows the blocked [y/N] question on the live terminal, declines it, and the job ends as human:NAME@web', async (ctx) => {
    const { d } = await webDaemon(ctx);
    await blockedJob(d);
    const alice = await token(d, 'alice');
    const page = await browser.page(PHONE);
    const errors = pageErrors(page);

    await page.goto(alice.login_url);
    expect(new URL(page.url()).search, 'the code leaves the address bar').toBe('');
    await waitText(page, '#who', 'Signed in as alice (operator)');
    await page.waitForSelector(`li[data-job="${JOB}"][data-state="blocked"]`);
    // The row says the reason in words; its code, with the rule that matched, is the tooltip.
    await waitText(page, `li[data-job="${JOB}"] .job-reason`, 'waiting at a question');
    expect(await page.getAttribute(`li[data-job="${JOB}"] .job-reason`, 'title')).toContain('generic-yes-no');

    await page.click(`li[data-job="${JOB}"] a`);
    expect(new URL(page.url()).pathname).toBe(`/jobs/${JOB}`);
    const t0 = Date.now();
    await waitText(page, TERMINAL, 'Delete the cache? [y/N]', 8_000);
    expect(Date.now() - t0, 'the question is on the terminal within seconds').toBeLessThan(8_000);
    await waitText(page, '#prompt-text', 'Delete the cache? [y/N]');
    await waitText(page, '#decision', 'generic-yes-no');
    const decline = page.locator('button[data-choice="decline"]');
    expect(await decline.textContent()).toBe('n: No');
    expect(await page.locator('button[data-choice="answer"]').textContent()).toBe('y: Yes');
    // The page fits the phone: nothing but the terminal scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // 120 columns cannot fit 390 px readably: the font fits the columns in use instead (a short-lined screen: large).
    expect(await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('.xterm-rows')!).fontSize))).toBeGreaterThanOrEqual(12);
    await browser.screenshot(page, 'job-phone');

    await decline.click();
    await waitText(page, '#act-ok', 'human:alice@web');
    const done = await d.waitState(JOB, 'done', undefined, 15_000);
    expect(done.reason).toMatchObject({ code: 'exit', exit_code: 1 });
    await waitText(page, TERMINAL, 'got:n');
    await waitText(page, '#state', 'done');
    await waitText(page, '#timeline', 'Answered by human:alice@web');
    await waitText(page, '#timeline', 'Then: the question went away');
    const shown = await d.show(JOB);
    expect(shown.evidence.some((r) => r.answered_by === 'human:alice@web' && r.layer === 'human')).toBe(true);

    // The recording plays in asciinema-player (its WebAssembly is allowed by the CSP).
    await page.click('#load-recording');
    await page.waitForSelector('#player .ap-player', { timeout: 10_000 });

    // Opened after the end, the page shows the job's last screen (no live terminal to stream).
    await page.reload();
    await waitText(page, '#term-status', 'the job ended');
    await waitText(page, TERMINAL, 'got:n');

    await page.click('#back');
    await page.waitForSelector(`li[data-job="${JOB}"][data-state="done"]`);
    await waitText(page, `li[data-job="${JOB}"]`, 'done (failed)');
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('a page’s link, tapped on a phone', () => {
  it('opens the job page signed in as the page person; Decline there ends the job, recorded as human:NAME@web', async (ctx) => {
    const s = scope(ctx);
    const hook = await s.server();
    // Pages carry links only with notify.public_url: here the daemon's own address (a proxy's, in real use).
    const port = await freePort();
    const config = ['notify:', `  public_url: http://127.0.0.1:${port}`, '  page_person: pager', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${hook.url('/hook')}" }`, ''].join('\n');
    const d = await s.daemon(s.stateDir(config), ['--http', `127.0.0.1:${port}`]);
    await blockedJob(d);
    const [hit] = await hook.waitHits('/hook', 1, 20_000);
    const url = String((JSON.parse(hit!.body) as { url?: unknown }).url);
    expect(url).toMatch(new RegExp(`^${d.web}/jobs/${JOB}\\?code=`));

    const page = await browser.page(PHONE);
    const errors = pageErrors(page);
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe(`/jobs/${JOB}`);
    await waitText(page, '#who', 'Signed in as pager (operator)');
    await waitText(page, TERMINAL, 'Delete the cache? [y/N]', 8_000);
    await page.click('button[data-choice="decline"]');
    await d.waitState(JOB, 'done', undefined, 15_000);
    await waitText(page, '#timeline', 'Answered by human:pager@web');
    // The code worked once: the same link again is refused.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('the web page on a desktop (1280×800)', () => {
  it('signs in with a pasted token, asks before it sends an answer, and fits the terminal', async (ctx) => {
    const { d, base } = await webDaemon(ctx);
    await blockedJob(d);
    const olga = await token(d, 'olga');
    const page = await browser.page(DESKTOP);
    const errors = pageErrors(page);

    await page.goto(`${base}/jobs/${JOB}`);
    await page.waitForSelector('form.login');
    await page.fill('#token', olga.token);
    await Promise.all([page.waitForEvent('load'), page.click('form.login button[type=submit]')]);
    await waitText(page, '#who', 'Signed in as olga (operator)');
    await waitText(page, TERMINAL, 'Delete the cache? [y/N]');

    // The answer is confirmed first; Back sends nothing.
    await page.click('button[data-choice="answer"]');
    await waitText(page, '.confirm-box', 'Answer “y: Yes”?');
    await browser.screenshot(page, 'job-desktop-confirm');
    await page.click('.confirm-box button:has-text("Back")');
    expect(await page.locator('.confirm-box').count()).toBe(0);
    expect((await d.jobs()).find((j) => j.name === JOB)?.state).toBe('blocked');
    await waitText(page, '#timeline', 'Asked: “Delete the cache? [y/N]”');
    await browser.screenshot(page, 'job-desktop');
    // On a desk the whole screen (120 columns) fits its box with no sideways scroll, at a readable size.
    const fit = await page.evaluate(() => {
      const wrap = document.querySelector('.term-wrap')!;
      return { scrolls: wrap.scrollWidth > wrap.clientWidth, font: parseFloat(getComputedStyle(document.querySelector('.xterm-rows')!).fontSize) };
    });
    expect(fit.scrolls).toBe(false);
    expect(fit.font).toBeGreaterThanOrEqual(10);

    await page.goto(base);
    await page.waitForSelector(`li[data-job="${JOB}"][data-state="blocked"]`);
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('a finished job’s page', () => {
  it('shows the last screen whichever comes first: show’s screen or the socket’s end', async (ctx) => {
    const { d, base } = await webDaemon(ctx);
    await d.submit('short', ['bash', '-c', 'echo "all 12 files copied"']);
    await d.waitState('short', 'done', undefined, 15_000);
    const olga = await token(d, 'olga');
    const page = await browser.page(DESKTOP);
    const errors = pageErrors(page);
    await page.goto(olga.login_url);
    // The socket's messages come late (a slow link): the page has read show's last screen long before the end.
    await page.addInitScript(() => {
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        override addEventListener(type: string, fn: EventListenerOrEventListenerObject, opts?: boolean | AddEventListenerOptions): void {
          if (type !== 'message') return super.addEventListener(type, fn, opts);
          super.addEventListener(type, (ev) => setTimeout(() => (typeof fn === 'function' ? fn(ev) : fn.handleEvent(ev)), 1500), opts);
        }
      };
    });
    await page.goto(`${base}/jobs/short`);
    await waitText(page, '#term-status', 'the job ended');
    await waitText(page, TERMINAL, 'all 12 files copied');
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('the other acts', () => {
  it('sends a line from the text box, and cancels a job only after a confirm', async (ctx) => {
    const { d, base } = await webDaemon(ctx);
    await blockedJob(d);
    // Busy on screen, so the watchdog's short thresholds never call it hung. The count matters: once a
    // screen is full of the same "tick" it stops changing, the job turns hung, and the page's question
    // area redraws under the test's click on Cancel (a full-suite run missed the button that way).
    await d.submit('sleeper', ['bash', '-c', 'i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.3; done']);
    await d.waitState('sleeper', 'running', undefined, 15_000);
    const dan = await token(d, 'dan');
    const page = await browser.page(PHONE);
    const errors = pageErrors(page);
    await page.goto(dan.login_url);
    await page.goto(`${base}/jobs/${JOB}`);
    await waitText(page, TERMINAL, 'Delete the cache? [y/N]');
    expect(await page.locator('#continue').isDisabled(), 'continue is for a probe’s block, not a question').toBe(true);
    await page.fill('#send-text', 'y');
    await page.click('#send');
    await waitText(page, '#act-ok', 'Sent “y” and Enter.');
    const done = await d.waitState(JOB, 'done', undefined, 15_000);
    expect(done.reason).toMatchObject({ code: 'exit', exit_code: 0 });
    await waitText(page, '#state', 'done');
    await waitText(page, '#timeline', 'human:dan@web');

    await page.goto(`${base}/jobs/sleeper`);
    await waitText(page, '#no-question', 'No question waiting');
    await page.waitForSelector('#cancel:not([disabled])');
    await page.click('#cancel');
    await waitText(page, '.confirm-box', 'Cancel sleeper?');
    expect((await d.jobs()).find((j) => j.name === 'sleeper')?.state, 'nothing is cancelled before the confirm').toBe('running');
    await page.click('.confirm-box button.confirm');
    await d.waitState('sleeper', 'done', 'cancelled', 15_000);
    await waitText(page, '#timeline', 'Cancelled by human:dan@web');
    await waitText(page, '#state', 'done (failed)');
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('who may do what', () => {
  it('answers 401 without a sign-in and shows the sign-in form', async (ctx) => {
    const { base } = await webDaemon(ctx);
    for (const path of ['/api/v1/jobs', '/api/v1/me', `/api/v1/jobs/${JOB}`]) {
      const r = await fetch(`${base}${path}`);
      expect(r.status, path).toBe(401);
      expect(((await r.json()) as { error: string }).error).toMatch(/sign/);
    }
    const r = await fetch(`${base}/api/v1/jobs/${JOB}/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"choice":"decline"}' });
    expect(r.status).toBe(401);
    const page = await browser.page(PHONE);
    await page.goto(base);
    await page.waitForSelector('form.login');
    await waitText(page, '#who', 'Not signed in');
  });

  it('shows a viewer the question with the buttons disabled, and the API refuses the viewer’s answer (403)', async (ctx) => {
    const { d, base } = await webDaemon(ctx);
    await blockedJob(d);
    const bob = await token(d, 'bob', 'viewer');
    const page = await browser.page(PHONE);
    await page.goto(bob.login_url);
    await waitText(page, '#who', 'Signed in as bob (viewer)');
    await page.goto(`${base}/jobs/${JOB}`);
    await waitText(page, TERMINAL, 'Delete the cache? [y/N]');
    await page.waitForSelector('button[data-choice="decline"]');
    for (const sel of ['button[data-choice="decline"]', 'button[data-choice="answer"]', '#send', '#cancel', '#continue', '#ack']) {
      expect(await page.locator(sel).isDisabled(), sel).toBe(true);
    }
    await waitText(page, '#viewer-note', 'viewer');
    await browser.screenshot(page, 'job-phone-viewer');

    // The page's own session (cookie and CSRF token) and the bearer token are both refused.
    const viaPage = await page.evaluate(async (job) => {
      const me = await (await fetch('/api/v1/me')).json();
      const r = await fetch(`/api/v1/jobs/${job}/answer`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf }, body: '{"choice":"decline"}' });
      return { status: r.status, body: await r.json() };
    }, JOB);
    expect(viaPage.status).toBe(403);
    expect(viaPage.body.error).toMatch(/bob is a viewer/);
    const viaToken = await fetch(`${base}/api/v1/jobs/${JOB}/answer`, { method: 'POST', headers: { authorization: `Bearer ${bob.token}`, 'content-type': 'application/json' }, body: '{"choice":"decline"}' });
    expect(viaToken.status).toBe(403);
    expect((await d.jobs()).find((j) => j.name === JOB)?.state).toBe('blocked');
  }, 60_000);

  it('refuses a revoked token: its bearer requests, its browser session and its login URL', async (ctx) => {
    const { d, base } = await webDaemon(ctx);
    const carol = await token(d, 'carol');
    const page = await browser.page(PHONE);
    await page.goto(carol.login_url);
    await waitText(page, '#who', 'Signed in as carol (operator)');
    const fresh = await token(d, 'carol');
    expect((await fetch(`${base}/api/v1/jobs`, { headers: { authorization: `Bearer ${fresh.token}` } })).status).toBe(200);

    const r = await web(d, 'revoke', ['carol']);
    expect(r.code, r.stderr).toBe(0);
    expect((await fetch(`${base}/api/v1/jobs`, { headers: { authorization: `Bearer ${fresh.token}` } })).status).toBe(401);
    await page.reload();
    await page.waitForSelector('form.login');
    await page.fill('#token', fresh.token);
    await page.click('form.login button[type=submit]');
    await waitText(page, '#error', 'not valid');
    const again = await page.goto(fresh.login_url);
    expect(again?.status()).toBe(401);
  }, 60_000);
});
