/**
 * Issue 11, point 2: `nightshift web token|revoke|list` against a real
 * daemon, through the real CLI. Tokens are shown once and never stored;
 * every call is in the audit log as the socket's user. Needs a build first
 * (npx tsc -p tsconfig.json).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boardBytes } from '../helpers/board-bytes.js';
import { expectInputError, testScopes } from '../helpers/daemon.js';

const scope = testScopes();
const AS = { NIGHTSHIFT_USER: 'ops' };


describe('nightshift web: people and tokens', () => {
  it('token --json, list, revoke; bad role, name and unknown person are one-line input errors; all audited, no token stored', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());

    const made = await d.ns('web', ['token', 'Alice', '--json'], AS);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout.endsWith('}\n')).toBe(true);
    const alice = JSON.parse(made.stdout) as { name: string; token: string; login_url: string | null; role: string };
    expect(Object.keys(alice)).toEqual(['name', 'token', 'login_url', 'role']);
    expect(alice).toMatchObject({ name: 'alice', login_url: null, role: 'operator' });
    expect(alice.token).toMatch(/^nst_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);

    const vic = await d.ns('web', ['token', 'vic', '--role', 'viewer'], AS);
    expect(vic.code, vic.stderr).toBe(0);
    expect(vic.stdout).toMatch(/^token for vic \(viewer\); it is shown only this once:\n {2}nst_\S+\n/);
    expect(vic.stdout).toMatch(/no login URL: .*--http HOST:PORT or set notify\.public_url/);

    expectInputError(await d.ns('web', ['token', 'carol', '--role', 'admin'], AS), /bad role "admin": use viewer or operator/);
    expectInputError(await d.ns('web', ['token', 'Bad Name'], AS), /bad person name "Bad Name"/);
    expectInputError(await d.ns('web', ['revoke', 'nobody'], AS), /no web token for "nobody"/);

    const revoked = await d.ns('web', ['revoke', 'alice'], AS);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('revoked alice\n');

    const listed = await d.ns('web', ['list', '--json'], AS);
    expect(listed.code, listed.stderr).toBe(0);
    const { people } = JSON.parse(listed.stdout) as { people: Array<Record<string, string | null>> };
    expect(people.map((p) => [p.name, p.role, p.last_used, p.revoked === null])).toEqual([
      ['alice', 'operator', null, false],
      ['vic', 'viewer', null, true],
    ]);
    const table = await d.ns('web', ['list'], AS);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +ROLE +CREATED +LAST USED +STATUS$/);
    expect(table.stdout).toMatch(/^alice +operator +\S+ ago +never +revoked \S+ ago$/m);
    expect(table.stdout).toMatch(/^vic +viewer +\S+ ago +never +active$/m);

    expect(boardBytes(d.state)).not.toContain(alice.token.slice(21));
    const auditFile = join(d.state, 'web-audit.jsonl');
    expect(statSync(auditFile).mode & 0o777).toBe(0o600);
    const audit = readFileSync(auditFile, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.map((a) => [a.who, a.action, a.ok])).toEqual([
      ['human:ops', 'web-token', true],
      ['human:ops', 'web-token', true],
      ['human:ops', 'web-revoke', false],
      ['human:ops', 'web-revoke', true],
      ['human:ops', 'web-list', true],
      ['human:ops', 'web-list', true],
    ]);
    expect(JSON.stringify(audit)).not.toContain(alice.token);
  }, 60_000);

  it('with --http the login URL is on the daemon\'s address and works once', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir(), ['--http', '127.0.0.1:0']);
    const made = await d.ns('web', ['token', 'bob', '--json'], AS);
    expect(made.code, made.stderr).toBe(0);
    const { login_url: url } = JSON.parse(made.stdout) as { login_url: string };
    expect(url).toMatch(new RegExp(`^${d.web}/login\\?code=nsc_[A-Za-z0-9_-]{43}$`));
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
  }, 60_000);
});
