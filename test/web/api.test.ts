/**
 * Issue 11.1, 11.2, 11.4: the HTTP API and the terminal WebSocket against a
 * real daemon (`--http 127.0.0.1:0`), a real job blocked at a real `[y/N]`
 * question, real tokens from `nightshift web token`. Needs a build first.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sr, testScopes, waitUntil, type DaemonProc, type Scope } from '../helpers/daemon.js';
import { api, bearer, post, terminal, token, web } from '../helpers/web-api.js';

const scope = testScopes();
const SOON = 20_000;
const QUESTION = 'Delete the cache? [y/N] ';
const ASK = ['bash', '-c', `read -r -p "${QUESTION}" a; echo "got:$a"; [ "$a" = n ] && exit 3; exit 0`];

async function blockedJob(s: Scope): Promise<DaemonProc> {
  const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0']);
  await d.submit('ask', ASK);
  await d.waitState('ask', 'blocked', undefined, SOON);
  return d;
}

describe('issue 11: the HTTP API and the terminal over real HTTP and WebSockets', () => {
  it('401 without credentials; the board and show as the CLI gives them; a viewer is refused a write; an operator declines and the evidence says human:NAME@web', async (ctx) => {
    const s = scope(ctx);
    const d = await blockedJob(s);
    const alice = await token(d, 'alice');
    const vic = await token(d, 'vic', 'viewer');
    expect(alice.role).toBe('operator');
    expect(Object.keys(alice).sort()).toEqual(['login_url', 'name', 'role', 'token']);

    const anon = await api(d, '/api/v1/jobs');
    expect(anon.status).toBe(401);
    expect(anon.body.error).toMatch(/sign in/);
    expect(anon.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await api(d, '/api/v1/jobs', { headers: { authorization: 'Bearer nst_nope_nope' } })).status).toBe(401);

    const board = await api(d, '/api/v1/jobs', { headers: bearer(vic) });
    expect(board.status).toBe(200);
    const cli = await d.boardCli();
    expect(board.body.jobs.map((j: { id: string; state: string }) => [j.id, j.state])).toEqual(cli.map((j) => [j.id, j.state]));
    expect(Object.keys(board.body.jobs[0]).sort()).toEqual(Object.keys(cli[0]!).sort());

    const shown = await api(d, '/api/v1/jobs/ask', { headers: bearer(vic) });
    expect(shown.status).toBe(200);
    const shownCli = await d.showCli('ask');
    expect(Object.keys(shown.body).sort()).toEqual(Object.keys(shownCli).sort());
    expect(shown.body.job.id).toBe(shownCli.job.id);
    expect(shown.body.prompt).toMatchObject({ rule: 'generic-yes-no', decision: 'escalate' });
    expect(shown.body.prompt.choices.map((c: { choice: string; keys: string[] }) => [c.choice, c.keys])).toEqual([
      ['answer', ['y', 'enter']],
      ['decline', ['n', 'enter']],
    ]);
    expect((await api(d, '/api/v1/jobs/nosuch', { headers: bearer(vic) })).status).toBe(404);

    const refused = await api(d, '/api/v1/jobs/ask/answer', post(vic, { choice: 'decline' }));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/vic is a viewer/);
    expect(sr(await d.waitState('ask', 'blocked', undefined, 1_000))).toMatch(/^blocked\//);
    // who is the signed-in person's, whatever the body says.
    const bad = await api(d, '/api/v1/jobs/ask/answer', post(alice, { choice: 'decline', text: 'y' }));
    expect(bad.status).toBe(400);

    const ok = await api(d, '/api/v1/jobs/ask/answer', post(alice, { choice: 'decline', who: 'mallory' }));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ keys: ['n', 'enter'], answered_by: 'human:alice@web' });
    const done = await d.waitState('ask', 'done', undefined, SOON);
    expect(done.reason.exit_code).toBe(3);
    const evidence = readFileSync(done.paths!.evidence, 'utf8');
    expect(evidence).toContain('"answered_by":"human:alice@web"');
    expect(evidence).not.toContain('mallory');
    const timeline = await api(d, '/api/v1/jobs/ask/evidence', { headers: bearer(vic) });
    expect(timeline.body.records.some((r: { answered_by?: string }) => r.answered_by === 'human:alice@web')).toBe(true);

    // Written behind the replies (a stream): read once alice's answer is in it.
    const audit = await waitUntil(() => {
      const text = readFileSync(join(d.state, 'web-audit.jsonl'), 'utf8');
      return /"who":"alice".*"action":"answer".*"ok":true/.test(text) ? text : undefined;
    }, 5_000, "alice's answer in the audit");
    expect(audit).toMatch(/"who":"vic".*"action":"answer".*"ok":false/);
    expect(audit).toMatch(/"who":"alice".*"action":"answer".*"ok":true/);
    expect(audit).not.toContain(alice.token);

    const rec = await api(d, '/api/v1/jobs/ask/recording', { headers: bearer(vic) });
    expect(rec.status).toBe(200);
    expect(String(rec.body)).toContain('Delete the cache?');
  }, 90_000);

  it('the terminal WebSocket sends the screen first, then live output, then the end; a revoked token is refused', async (ctx) => {
    const s = scope(ctx);
    const d = await blockedJob(s);
    const alice = await token(d, 'alice');
    const t = terminal(d, 'ask', bearer(alice));
    await waitUntil(() => t.frames.length > 0, SOON, 'the first frame');
    expect(t.frames[0]).toMatchObject({ type: 'snapshot', cols: expect.any(Number) });
    expect(t.frames[0]!.data).toContain('Delete the cache? [y/N]');
    expect((await api(d, '/api/v1/jobs/ask/answer', post(alice, { text: 'n' }))).status).toBe(200);
    await waitUntil(() => t.frames.some((f) => f.type === 'end'), SOON, 'the end frame', { describe: () => JSON.stringify(t.frames) });
    expect(t.frames.filter((f) => f.type === 'output').map((f) => f.data).join('')).toContain('got:n');
    expect(await t.closed).toBe(1000);

    const anon = terminal(d, 'ask', {});
    expect(await anon.failed).toBe(401);
    const cross = terminal(d, 'ask', { ...bearer(alice), origin: 'https://evil.example' });
    expect(await cross.failed).toBe(403);

    expect((await web(d, 'revoke', 'alice')).code).toBe(0);
    expect((await api(d, '/api/v1/jobs', { headers: bearer(alice) })).status).toBe(401);
    const list = await web(d, 'list', '--json');
    expect(list.stdout).toContain('alice');
    expect(list.stdout).not.toContain(alice.token);
  }, 90_000);

  it('a login URL signs a browser in once: an HttpOnly SameSite cookie, and cookie writes need the CSRF header', async (ctx) => {
    const s = scope(ctx);
    const d = await blockedJob(s);
    const bob = await token(d, 'bob');
    expect(bob.login_url).toMatch(new RegExp(`^${d.web}/login\\?code=`));
    const first = await fetch(bob.login_url!, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect((await fetch(bob.login_url!, { redirect: 'manual' })).status).toBe(401);
    const jar = { cookie: cookie.split(';')[0]! };
    const me = await api(d, '/api/v1/me', { headers: jar });
    expect(me.body).toMatchObject({ name: 'bob', role: 'operator', csrf: expect.any(String) });
    const noCsrf = await api(d, '/api/v1/jobs/ask/ack', post(null, {}, jar));
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error).toMatch(/x-csrf-token/);
    const withCsrf = await api(d, '/api/v1/jobs/ask/ack', post(null, {}, { ...jar, 'x-csrf-token': me.body.csrf }));
    expect(withCsrf.status).toBe(200);
    const typed = await api(d, '/api/v1/login', post(null, { token: bob.token }));
    expect(typed.status).toBe(200);
    expect(typed.headers.get('set-cookie')).toMatch(/nightshift_session=/);
  }, 90_000);

  it('an answer bound to an episode reaches that question or none: the job moved on, 409, nothing sent', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0']);
    await d.submit('twice', ['bash', '-c', 'read -r -p "Delete A? [y/N] " a; read -r -p "Delete B? [y/N] " b; echo "got:$a$b"']);
    await d.waitState('twice', 'blocked', undefined, SOON);
    const alice = await token(d, 'alice');
    const first = (await api(d, '/api/v1/jobs/twice', { headers: bearer(alice) })).body.prompt;
    expect(first.episode).toMatch(/:1$/);
    expect((await d.ns('answer', ['twice', 'n'])).code).toBe(0);
    await waitUntil(async () => (await api(d, '/api/v1/jobs/twice', { headers: bearer(alice) })).body.prompt?.episode?.endsWith(':2'), SOON, 'the second question');
    const late = await api(d, '/api/v1/jobs/twice/answer', post(alice, { choice: 'answer', episode: first.episode }));
    expect(late.status).toBe(409);
    expect(late.body.error).toMatch(/moved on.*nothing was sent/);
    const rec = (await d.jobs()).find((j) => j.name === 'twice')!;
    expect(readFileSync(rec.paths!.evidence, 'utf8')).not.toContain('human:alice@web');
    expect(sr(rec)).toMatch(/^blocked\//);
    const ok = await api(d, '/api/v1/jobs/twice/answer', post(alice, { choice: 'decline', episode: first.episode.replace(/:1$/, ':2') }));
    expect(ok.status).toBe(200);
    await d.waitState('twice', 'done', undefined, SOON);
  }, 90_000);

  it('a client that stops reading a recording does not hold the daemon open: shutdown exits at once', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0']);
    await d.submit('flood', ['bash', '-c', 'head -c 24000000 /dev/zero | base64 -w 76']);
    const done = await d.waitState('flood', 'done', undefined, 60_000);
    const alice = await token(d, 'alice');
    const { request } = await import('node:http');
    const stalled = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      request(`${d.web}/api/v1/jobs/flood/recording`, { headers: bearer(alice) }, resolve).on('error', reject).end();
    });
    expect(stalled.statusCode).toBe(200);
    stalled.pause();
    stalled.on('error', () => undefined);
    expect(readFileSync(done.paths!.recording).length).toBeGreaterThan(8_000_000);
    const t0 = Date.now();
    expect((await d.ns('shutdown')).code).toBe(0);
    await d.proc.exit;
    expect(Date.now() - t0).toBeLessThan(8_000);
  }, 120_000);

  it('logins are rate-limited per address', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0']);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await api(d, '/api/v1/login', post(null, { token: `nst_x_${i}` }))).status);
    expect(statuses.slice(0, 10).every((c) => c === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  }, 60_000);

  it('--http on a non-loopback address needs TLS or --http-insecure; with a certificate it serves https', async (ctx) => {
    const s = scope(ctx);
    const refused = await runCli(['daemon', '--state', s.stateDir(), '--http', '0.0.0.0:0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/0\.0\.0\.0 is not a loopback address.*--tls-cert.*--http-insecure/);
    expect((await runCli(['daemon', '--state', s.stateDir(), '--tls-cert', 'x.pem'])).code).toBe(2);
    const dir = s.tempDir();
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    const d = await s.daemon(s.stateDir(), ['--http', '0.0.0.0:0', '--tls-cert', cert, '--tls-key', key]);
    expect(d.web).toMatch(/^https:\/\/0\.0\.0\.0:\d+$/);
    const port = Number(new URL(d.web!).port);
    const status = await new Promise<number>((resolve, reject) => {
      httpsRequest({ host: '127.0.0.1', port, path: '/api/v1/jobs', rejectUnauthorized: false }, (res) => resolve(res.statusCode ?? 0))
        .on('error', reject)
        .end();
    });
    expect(status).toBe(401);
  }, 60_000);
});
