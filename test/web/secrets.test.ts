/**
 * No secret reaches the web: a real daemon with --http, a real job given
 * secrets in --env, in its command line and in its output, blocked at a
 * real [y/N] question; a real HTTP receiver standing in for ntfy, so a page
 * with its links is sent. Every route that serves job data is fetched as a
 * viewer and as an operator, and every byte is searched for the secrets.
 * Needs a build first.
 */
import { describe, expect, it } from 'vitest';
import { testScopes, waitUntil, type DaemonProc } from '../helpers/daemon.js';
import { api, bearer, events, pagedWebDaemon, post, terminal, token, type Token } from '../helpers/web-api.js';

const scope = testScopes();
const SOON = 20_000;

const DB_URL = 'postgres://app:hunter2pw@db.internal:5432/shop';
const API_TOKEN = 'tok-Zq9xW3vB7';
const REGION = 'eu-west-prod-7';
const GHP = 'ghp_R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf12';
const MYSQL_PW = 'correcthorse99';
/** What must never be read over the web: env values, a password in the command line, a token the job prints. */
const SECRETS = ['hunter2pw', API_TOKEN, REGION, GHP, MYSQL_PW];

// The command line holds two secrets; the output prints the env's and the token again; then it asks.
const SCRIPT = [
  `: mysql -uapp -p${MYSQL_PW} shop`,
  `echo "using ${GHP}"`,
  'echo "db is $DATABASE_URL, key $API_TOKEN, in $REGION"',
  'read -r -p "Deploy to prod in $REGION? [y/N] " a',
  'echo "got:$a"',
].join('; ');

type Shown = { job: { env: Record<string, string>; command: string[] } };

function leaks(where: string, bytes: string): string[] {
  return SECRETS.filter((s) => bytes.includes(s)).map((s) => `${where}: ${s}`);
}

/** Every route with job data, as WHO: their bytes, by route. */
async function everyRoute(d: DaemonProc, who: Token): Promise<Array<[string, string]>> {
  const h = { headers: bearer(who) };
  const out: Array<[string, string]> = [];
  for (const path of ['/api/v1/jobs', '/api/v1/jobs/deploy', '/api/v1/jobs/deploy/evidence', '/api/v1/digest', '/api/v1/jobs/deploy/recording']) {
    const r = await api(d, path, h);
    expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
    out.push([path, r.text]);
  }
  // The news stream's board event names each blocked job's question, which holds the env's REGION.
  const news = events(d, bearer(who));
  await waitUntil(() => news.text().includes('Deploy to prod in'), SOON, 'the board event with the question');
  news.abort();
  out.push(['events', news.text()]);
  const t = terminal(d, 'deploy', bearer(who));
  await waitUntil(() => t.frames.some((f) => f.type === 'snapshot'), SOON, 'the terminal snapshot');
  t.ws.close();
  out.push(['terminal', t.raw.join('\n')]);
  return out;
}

describe('the web view shows no secret', () => {
  it('list, job, evidence, digest, recording (header and events), terminal frames and the page link: no --env value, no command-line or output secret, for a viewer and an operator', async (ctx) => {
    const s = scope(ctx);
    const { d, ntfy, base } = await pagedWebDaemon(s);
    const env = ['--env', `DATABASE_URL=${DB_URL}`, '--env', `API_TOKEN=${API_TOKEN}`, '--env', `REGION=${REGION}`];
    await d.submit('deploy', ['bash', '-c', SCRIPT], env);
    await d.waitState('deploy', 'blocked', undefined, SOON);
    const vic = await token(d, 'vic', 'viewer');
    const alice = await token(d, 'alice');

    const found: string[] = [];
    const shownAs: Shown[] = [];
    for (const who of [vic, alice]) {
      const routes = await everyRoute(d, who);
      for (const [where, bytes] of routes) found.push(...leaks(`${who.name} ${where}`, bytes));
      shownAs.push(JSON.parse(routes.find(([p]) => p === '/api/v1/jobs/deploy')![1]) as Shown);
      const recording = routes.find(([p]) => p.endsWith('/recording'))![1];
      expect(recording).toContain('Deploy to prod in');
      expect(JSON.parse(recording.split('\n')[0]!)).toMatchObject({ version: 2 });
      expect(routes.find(([p]) => p === 'terminal')![1]).toContain('Deploy to prod in');
    }

    // The page ntfy got, and the job page its link opens.
    const [hit] = await ntfy.waitHits('/topic', 1, SOON);
    found.push(...leaks('page', JSON.stringify(hit)));
    const open = /view, Open, (\S+?)[;,]?(?: |$)/.exec(String(hit!.headers.actions))![1]!;
    const tapped = await fetch(open, { redirect: 'manual' });
    expect(tapped.status).toBe(303);
    const cookie = tapped.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${base}${tapped.headers.get('location')}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    found.push(...leaks('job page', await page.text()));
    const bySession = await api(d, '/api/v1/jobs/deploy', { headers: { cookie } });
    found.push(...leaks('job by page session', bySession.text));

    // Answered, the job ends: the finished recording, evidence and record are searched again.
    expect((await api(d, '/api/v1/jobs/deploy/answer', post(alice, { choice: 'decline' }))).status).toBe(200);
    await d.waitState('deploy', 'done', undefined, SOON);
    for (const path of ['/api/v1/jobs', '/api/v1/jobs/deploy', '/api/v1/jobs/deploy/evidence', '/api/v1/jobs/deploy/recording']) {
      found.push(...leaks(`done ${path}`, (await api(d, path, { headers: bearer(vic) })).text));
    }
    const ended = terminal(d, 'deploy', bearer(vic));
    await ended.closed;
    found.push(...leaks('done terminal', ended.raw.join('\n')));
    expect(found).toEqual([]);
    // The job's data really is there, only without its secrets: env names kept, values masked.
    for (const shown of shownAs) {
      expect(shown.job.env).toEqual({ DATABASE_URL: '***', API_TOKEN: '***', REGION: '***' });
      expect(shown.job.command.join(' ')).toContain('mysql -uapp -p[redacted] shop');
    }
  }, 120_000);

  it('web.show_env: true shows env values whose names do not look secret; secret-looking ones stay ***', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir('web:\n  show_env: true\n'), ['--http', '127.0.0.1:0']);
    await d.submit('env', ['bash', '-c', 'true'], ['--env', `REGION=${REGION}`, '--env', `API_TOKEN=${API_TOKEN}`]);
    await d.waitState('env', 'done', undefined, SOON);
    const vic = await token(d, 'vic', 'viewer');
    const shown = await api(d, '/api/v1/jobs/env', { headers: bearer(vic) });
    expect(shown.body.job.env).toEqual({ REGION, API_TOKEN: '***' });
  }, 60_000);
});
