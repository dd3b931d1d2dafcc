/**
 * The web view of a fleet host serves the whole fleet: host a's page shows a
 * job host b runs (its stored screen, a link to b's live terminal) and an
 * answer given on a's page reaches b. Real PostgreSQL, real daemons, real
 * HTTP and Debian's Chromium.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { browsers, pageErrors, PHONE } from '../helpers/browser.js';
import { sr, testScopes, type DaemonProc } from '../helpers/daemon.js';
import { Fleet, fleetCluster } from '../helpers/fleet.js';

const scope = testScopes();
const cluster = fleetCluster();
const browser = browsers();

async function token(d: DaemonProc, name: string): Promise<{ token: string; login_url: string }> {
  const r = await runCli(['web', 'token', name, '--state', d.state, '--json'], { ms: 20_000 });
  if (r.code !== 0) throw new Error(`web token exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { token: string; login_url: string };
}

describe('the web view on a fleet', () => {
  it('shows on host a a job that host b runs, links to b for the live terminal, and sends a\'s answer to b', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster());
    const a = await fleet.host('a', ['--http', '127.0.0.1:0']);
    const b = await fleet.host('b', ['--http', '127.0.0.1:0']);
    await fleet.submit('pin', ['sh', '-c', 'read -p "Delete all files? (y/n) " a; echo "got $a"; sleep 1'], ['--host', 'b']);
    await fleet.waitJob('pin', (j) => j.state === 'blocked', 30_000, 'blocked on b');
    const alice = await token(a, 'alice');
    const auth = { authorization: `Bearer ${alice.token}` };

    const board = (await (await fetch(`${a.web}/api/v1/jobs`, { headers: auth })).json()) as { jobs: Array<{ name: string; host: string; state: string }> };
    expect(board.jobs.map((j) => `${j.name}@${j.host}=${j.state}`)).toEqual(['pin@b=blocked']);
    const shown = (await (await fetch(`${a.web}/api/v1/jobs/pin`, { headers: auth })).json()) as { remote: boolean; live_url: string; screen: string; prompt: { choices: unknown[] } | null };
    expect(shown.remote).toBe(true);
    expect(shown.live_url).toBe(`${b.web}/jobs/pin`);
    expect(shown.screen).toContain('Delete all files?');
    // b answered the show itself: the question's buttons come with it.
    expect(shown.prompt?.choices.length).toBeGreaterThan(0);

    const page = await browser.page(PHONE);
    const errors = pageErrors(page);
    await page.goto(alice.login_url);
    await page.goto(`${a.web}/jobs/pin`);
    await page.waitForFunction(() => document.querySelector('#term-status')?.textContent?.includes('on host b'), null, { timeout: 15_000 });
    expect(await page.getAttribute('#live-link', 'href')).toBe(`${b.web}/jobs/pin`);
    await page.waitForFunction(() => document.querySelector('#term-text')?.textContent?.includes('Delete all files?'), null, { timeout: 15_000 });
    expect(errors).toEqual([]);

    const res = await fetch(`${a.web}/api/v1/jobs/pin/answer`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'y' }) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { answered_by: string }).answered_by).toBe('human:alice@web');
    const done = await fleet.waitJob('pin', (j) => j.state === 'done', 20_000, 'done on b');
    expect(sr(done)).toBe('done/exit');
  }, 90_000);
});
