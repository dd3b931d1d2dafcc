/**
 * Access that ends ends everywhere, and only a configured proxy is believed:
 * a real daemon with --http, real tokens and sessions, a real job blocked at
 * a real [y/N] question. Revoke and logout close open terminal sockets;
 * X-Forwarded-For from a process on loopback is ignored unless
 * web.trusted_proxies names it; bearer-token failures are limited per
 * address; `send` with a control character is refused before anything is
 * typed; a sign-in code POSTed as an action is refused and stays usable.
 * Needs a build first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { testScopes, waitUntil, type DaemonProc, type Scope } from '../helpers/daemon.js';
import { api, bearer, events, post, terminal, token, web } from '../helpers/web-api.js';

const scope = testScopes();
const SOON = 20_000;
const ASK = ['bash', '-c', 'read -r -p "Delete the cache? [y/N] " a; echo "got:[$a]"'];

async function blockedJob(s: Scope, config?: string): Promise<DaemonProc> {
  const d = await s.daemon(s.stateDir(config), ['--http', '127.0.0.1:0']);
  await d.submit('ask', ASK);
  await d.waitState('ask', 'blocked', undefined, SOON);
  return d;
}

/** A browser session from a fresh login URL: its cookie and CSRF token. */
async function signIn(d: DaemonProc, name: string): Promise<{ cookie: string; csrf: string }> {
  const t = await token(d, name);
  const res = await fetch(t.login_url!, { redirect: 'manual' });
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const me = await api(d, '/api/v1/me', { headers: { cookie } });
  return { cookie, csrf: me.body.csrf as string };
}

/** The socket's close code, or 'open' if it is still open after MS (a bound for a loaded machine; the close is immediate). */
const closedCode = (t: { closed: Promise<number> }, ms = 10_000) => Promise.race([t.closed, new Promise<'open'>((r) => setTimeout(() => r('open'), ms))]);

const audit = (d: DaemonProc) => readFileSync(join(d.state, 'web-audit.jsonl'), 'utf8');
/** The audit once it has `lines` lines that match: it is written behind the reply (a stream), in order. */
const auditOnce = (d: DaemonProc, re: RegExp, lines = 1) =>
  waitUntil(() => (audit(d).split('\n').filter((l) => re.test(l)).length >= lines ? audit(d) : undefined), 5_000, `${lines} audit line(s) matching ${re}`, {
    describe: () => audit(d),
  });

describe('web access ends when it should, and trusts no forged address', () => {
  it('revoke closes the person’s open terminal sockets; logout closes that session’s, not another person’s', async (ctx) => {
    const s = scope(ctx);
    const d = await blockedJob(s);
    const alice = await token(d, 'alice');
    const bob = await signIn(d, 'bob');
    const carol = await signIn(d, 'carol');
    const byToken = terminal(d, 'ask', bearer(alice));
    const bobs = terminal(d, 'ask', { cookie: bob.cookie });
    const carols = terminal(d, 'ask', { cookie: carol.cookie });
    for (const t of [byToken, bobs, carols]) await waitUntil(() => t.frames.length > 0, SOON, 'the snapshot');

    expect((await web(d, 'revoke', 'alice')).code).toBe(0);
    expect(await closedCode(byToken)).toBe(1008);

    const out = await api(d, '/api/v1/logout', post(null, {}, { cookie: bob.cookie, 'x-csrf-token': bob.csrf }));
    expect(out.status).toBe(200);
    expect(await closedCode(bobs)).toBe(1008);
    expect(carols.ws.readyState).toBe(carols.ws.OPEN);
    // Still live: carol's socket gets the job's output.
    expect((await api(d, '/api/v1/jobs/ask/send', post(null, { text: 'n' }, { cookie: carol.cookie, 'x-csrf-token': carol.csrf }))).status).toBe(200);
    await waitUntil(() => carols.text().includes('got:[n]'), SOON, 'carol to see the output');
    carols.ws.close();
  }, 90_000);

  it('revoke and logout close the board’s news stream too; another person’s stays open', async (ctx) => {
    const s = scope(ctx);
    const d = await blockedJob(s);
    const alice = await token(d, 'alice');
    const bob = await signIn(d, 'bob');
    const carol = await signIn(d, 'carol');
    const streams = [events(d, bearer(alice)), events(d, { cookie: bob.cookie }), events(d, { cookie: carol.cookie })];
    for (const e of streams) await waitUntil(() => e.text().includes('event: board'), SOON, 'the first board event');
    const [byToken, bobs, carols] = streams as [ReturnType<typeof events>, ReturnType<typeof events>, ReturnType<typeof events>];

    expect((await web(d, 'revoke', 'alice')).code).toBe(0);
    expect(await Promise.race([byToken.ended, new Promise((r) => setTimeout(() => r('open'), 10_000))])).toBe(0);
    const out = await api(d, '/api/v1/logout', post(null, {}, { cookie: bob.cookie, 'x-csrf-token': bob.csrf }));
    expect(out.status).toBe(200);
    expect(await Promise.race([bobs.ended, new Promise((r) => setTimeout(() => r('open'), 10_000))])).toBe(0);
    expect(await Promise.race([carols.ended, new Promise((r) => setTimeout(() => r('open'), 1_000))])).toBe('open');
    carols.abort();
  }, 90_000);

  it('X-Forwarded-For from loopback is ignored by default: the login limit holds and the audit has the real address', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0']);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await api(d, '/api/v1/login', post(null, { token: `nst_x_${i}` }, { 'x-forwarded-for': `203.0.113.${i}` }))).status);
    }
    expect(statuses.slice(10)).toEqual([429, 429]);
    const written = await auditOnce(d, /"action":"login".*"ip":"127\.0\.0\.1"/, 10);
    expect(written).not.toContain('203.0.113.');
  }, 60_000);

  it('web.trusted_proxies: the named proxy’s X-Forwarded-For and -Proto are believed (audit address, Secure cookie); a bad address is refused with file:line', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir('web:\n  trusted_proxies: [127.0.0.1]\n'), ['--http', '127.0.0.1:0']);
    const bob = await token(d, 'bob');
    const code = new URL(bob.login_url!).search;
    const res = await fetch(`${d.web}/login${code}`, { redirect: 'manual', headers: { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
    await auditOnce(d, /"action":"login-code".*"ip":"198\.51\.100\.7"/);

    const dir = s.stateDir('web:\n  show_env: false\n  trusted_proxies:\n    - loopback\n');
    const refused = await runCli(['daemon', '--state', dir, '--http', '127.0.0.1:0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(`nightshift: ${join(dir, 'config.yaml')}:4: web.trusted_proxies.0: "loopback" is not an IP address or CIDR range; expected e.g. 127.0.0.1 or 10.0.0.0/8`);
  }, 60_000);

  it('bearer-token failures are limited per address (429 with Retry-After); a good token in use still passes', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0']);
    const alice = await token(d, 'alice');
    expect((await api(d, '/api/v1/jobs', { headers: bearer(alice) })).status).toBe(200);
    // Guesses at alice's real token id: each would cost an scrypt.
    const id = /^nst_([0-9a-f]+)_/.exec(alice.token)![1]!;
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await api(d, '/api/v1/jobs', { headers: { authorization: `Bearer nst_${id}_guess${i}xxxxxxxxxxxxxxxx` } })).status);
    expect(statuses.filter((c) => c === 401).length).toBe(20);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
    const limited = await api(d, '/api/v1/jobs', { headers: { authorization: 'Bearer nst_0000000000000000_nope' } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api(d, '/api/v1/jobs', { headers: bearer(alice) })).status).toBe(200);
  }, 60_000);

  it('send with a control character is a 400 naming the key route, and nothing is typed; a sign-in code POSTed as an action is a 400 and still signs in', async (ctx) => {
    const s = scope(ctx);
    const d = await blockedJob(s);
    const alice = await token(d, 'alice');
    const sent = await api(d, '/api/v1/jobs/ask/send', post(alice, { text: '\u0003' }));
    expect(sent.status).toBe(400);
    expect(sent.body.error).toMatch(/control character U\+0003.*\/api\/v1\/jobs\/JOB\/key/);
    const rec = (await d.jobs()).find((j) => j.name === 'ask')!;
    expect(rec.state).toBe('blocked');
    expect(readFileSync(rec.paths!.evidence, 'utf8')).not.toContain('"action":"send"');

    const bob = await token(d, 'bob');
    const code = new URL(bob.login_url!).searchParams.get('code')!;
    const asAction = await api(d, `/a/${encodeURIComponent(code)}`, { method: 'POST' });
    expect(asAction.status).toBe(400);
    expect(asAction.body.error).toMatch(/sign-in link.*still valid/);
    expect((await fetch(bob.login_url!, { redirect: 'manual' })).status).toBe(303);
  }, 60_000);
});
