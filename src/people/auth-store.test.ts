import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrypt } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boardBytes } from '../../test/helpers/board-bytes.js';
import { openDatabase, type Database } from '../board/db.js';
import { InputError } from '../util/errors.js';
import { PAGE_SESSION_MAX_MS, SESSION_IDLE_MS, SESSION_MAX_MS, WebAuth } from './auth-store.js';
import { TOKEN_CACHE_MS, VerifiedTokens } from './verified-tokens.js';

// scrypt as it is, counted: the token cache's point is how often it runs.
vi.mock('node:crypto', async (real) => {
  const m = await real<typeof import('node:crypto')>();
  return { ...m, scrypt: vi.fn(m.scrypt) };
});
const scrypts = (): number => vi.mocked(scrypt).mock.calls.length;

const T0 = Date.UTC(2026, 0, 1, 3, 0, 0);
const MIN = 60_000;
const open: Array<{ dir: string; db: Database; auth: WebAuth }> = [];

function store(): { dir: string; db: Database; auth: WebAuth } {
  const dir = mkdtempSync(join(tmpdir(), 'ns-web-auth-'));
  const db = openDatabase(dir);
  const s = { dir, db, auth: new WebAuth(db, { auditPath: join(dir, 'web-audit.jsonl') }) };
  open.push(s);
  return s;
}

afterEach(async () => {
  for (const s of open.splice(0)) {
    await s.auth.close();
    s.db.close();
    rmSync(s.dir, { recursive: true, force: true });
  }
});


describe('WebAuth tokens', () => {
  it('stores no token: neither the token nor its secret part is in the database file', async () => {
    const { dir, auth } = store();
    const { token } = auth.createToken('alice', 'operator', T0);
    expect(token).toMatch(/^nst_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(await auth.verifyToken(token, T0)).toEqual({ name: 'alice', role: 'operator' });
    const bytes = boardBytes(dir);
    expect(bytes).not.toContain(token);
    expect(bytes).not.toContain(token.slice(21));
  });

  it('refuses a wrong secret, a malformed token and an unknown id', async () => {
    const { auth } = store();
    const { token } = auth.createToken('alice', 'viewer', T0);
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(await auth.verifyToken(flipped, T0)).toBeNull();
    expect(await auth.verifyToken('nst_nothex_x', T0)).toBeNull();
    expect(await auth.verifyToken(`nst_0000000000000000_${token.slice(21)}`, T0)).toBeNull();
  });

  it('a new token replaces the old one, ends its sessions, and takes the new role', async () => {
    const { auth } = store();
    const old = auth.createToken('alice', 'operator', T0).token;
    const { id } = auth.startSession({ name: 'alice', role: 'operator' }, T0);
    const fresh = auth.createToken('alice', 'viewer', T0 + MIN).token;
    expect(await auth.verifyToken(old, T0 + MIN)).toBeNull();
    expect(await auth.verifyToken(fresh, T0 + MIN)).toEqual({ name: 'alice', role: 'viewer' });
    expect(auth.session(id, T0 + MIN)).toBeNull();
  });

  it('revoke refuses the token, its sessions and unused codes; a new token re-enables the person', async () => {
    const { auth } = store();
    const { token } = auth.createToken('bob', 'operator', T0);
    const { id } = auth.startSession({ name: 'bob', role: 'operator' }, T0);
    const code = auth.mintCode({ name: 'bob', role: 'operator' }, { kind: 'login', next: '/' }, 10 * MIN, T0);
    expect(auth.revoke('bob', T0 + MIN)).toEqual({ token: true, sessions: 1, codes: 1 });
    expect(auth.revoke('nobody', T0 + MIN)).toBeNull();
    expect(await auth.verifyToken(token, T0 + MIN)).toBeNull();
    expect(auth.session(id, T0 + MIN)).toBeNull();
    expect(auth.redeemCode(code, T0 + MIN)).toBeNull();
    expect(auth.list()).toEqual([{ name: 'bob', role: 'operator', created: new Date(T0).toISOString(), last_used: null, revoked: new Date(T0 + MIN).toISOString() }]);
    const again = auth.createToken('bob', 'viewer', T0 + 2 * MIN).token;
    expect(await auth.verifyToken(again, T0 + 2 * MIN)).toEqual({ name: 'bob', role: 'viewer' });
    expect(auth.list()[0]).toMatchObject({ revoked: null, created: new Date(T0 + 2 * MIN).toISOString() });
  });

  it('records last_used, at most once a minute', async () => {
    const { auth } = store();
    const { token } = auth.createToken('carol', 'viewer', T0);
    expect(auth.list()[0]!.last_used).toBeNull();
    await auth.verifyToken(token, T0 + 1000);
    await auth.verifyToken(token, T0 + 2000);
    expect(auth.list()[0]!.last_used).toBe(new Date(T0 + 1000).toISOString());
    await auth.verifyToken(token, T0 + 1000 + MIN);
    expect(auth.list()[0]!.last_used).toBe(new Date(T0 + 1000 + MIN).toISOString());
  });

  it('a verified token skips scrypt for a minute; revoke and a new token end that at once', async () => {
    const { auth } = store();
    const { token } = auth.createToken('alice', 'operator', T0);
    const before = scrypts();
    expect(await auth.verifyToken(token, T0)).toEqual({ name: 'alice', role: 'operator' });
    expect(await auth.verifyToken(token, T0 + TOKEN_CACHE_MS - 1)).toEqual({ name: 'alice', role: 'operator' });
    expect(scrypts() - before).toBe(1);
    // Past the minute: scrypt again. A wrong secret is never cached, so each try costs one.
    await auth.verifyToken(token, T0 + TOKEN_CACHE_MS);
    expect(scrypts() - before).toBe(2);
    expect(await auth.verifyToken(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), T0 + TOKEN_CACHE_MS)).toBeNull();
    expect(scrypts() - before).toBe(3);
    auth.revoke('alice', T0 + TOKEN_CACHE_MS + 1);
    expect(await auth.verifyToken(token, T0 + TOKEN_CACHE_MS + 2)).toBeNull();
    // Re-enabled with the same name: the old token's cache entry is gone, the new one is verified afresh.
    const fresh = auth.createToken('alice', 'viewer', T0 + TOKEN_CACHE_MS + 3).token;
    expect(await auth.verifyToken(token, T0 + TOKEN_CACHE_MS + 4)).toBeNull();
    expect(await auth.verifyToken(fresh, T0 + TOKEN_CACHE_MS + 4)).toEqual({ name: 'alice', role: 'viewer' });
    expect(scrypts() - before).toBe(4);
  });

  it('the token cache is bounded, dropping the oldest; forget drops one person\'s tokens', () => {
    const cache = new VerifiedTokens(2);
    cache.add('h1', 'a', 'id1', T0);
    cache.add('h2', 'b', 'id2', T0);
    cache.add('h3', 'b', 'id3', T0);
    expect([cache.has('h1', 'id1', T0), cache.has('h2', 'id2', T0), cache.has('h3', 'id3', T0)]).toEqual([false, true, true]);
    expect(cache.has('h2', 'other-id', T0)).toBe(false);
    cache.add('h1', 'a', 'id1', T0);
    cache.forget('b');
    expect([cache.has('h1', 'id1', T0), cache.has('h3', 'id3', T0)]).toEqual([true, false]);
    expect(cache.has('h1', 'id1', T0 + TOKEN_CACHE_MS)).toBe(false);
  });

  it('names are case-insensitive; a bad name or role is an InputError naming the value', () => {
    const { auth } = store();
    auth.createToken('Dave.OPS', 'operator', T0);
    expect(auth.list().map((p) => p.name)).toEqual(['dave.ops']);
    expect(() => auth.createToken('no spaces', 'operator', T0)).toThrow(InputError);
    expect(() => auth.createToken('no spaces', 'operator', T0)).toThrow(/bad person name "no spaces"/);
    expect(() => auth.createToken('-x', 'operator', T0)).toThrow(/"-x"/);
    expect(() => auth.createToken('x'.repeat(65), 'operator', T0)).toThrow(InputError);
    expect(() => auth.createToken('erin', 'admin' as never, T0)).toThrow(/bad role "admin"/);
  });
});

describe('WebAuth codes', () => {
  const alice = { name: 'alice', role: 'operator' } as const;

  it('is single use, url-safe, and not stored', () => {
    const { dir, auth } = store();
    const code = auth.mintCode(alice, { kind: 'login', next: '/jobs/fix' }, 10 * MIN, T0);
    expect(code).toMatch(/^nsc_[A-Za-z0-9_-]{43}$/);
    expect(encodeURIComponent(code)).toBe(code);
    expect(boardBytes(dir)).not.toContain(code);
    expect(auth.redeemCode(code, T0 + 1)).toEqual({ person: alice, purpose: { kind: 'login', next: '/jobs/fix' } });
    expect(auth.redeemCode(code, T0 + 2)).toBeNull();
    expect(auth.redeemCode('nsc_unknown', T0)).toBeNull();
  });

  it('expires after its ttl', () => {
    const { auth } = store();
    const purpose = { kind: 'action', job: 'fix', action: 'decline', episode: 'e1' } as const;
    const a = auth.mintCode(alice, purpose, 10 * MIN, T0);
    const b = auth.mintCode(alice, purpose, 10 * MIN, T0);
    expect(auth.redeemCode(a, T0 + 10 * MIN - 1)).toEqual({ person: alice, purpose });
    expect(auth.redeemCode(b, T0 + 10 * MIN)).toBeNull();
  });

  it('works for a person with no token (the on-call identity); not once their token is revoked', () => {
    const { auth } = store();
    const oncall = { name: 'oncall', role: 'operator' } as const;
    expect(auth.redeemCode(auth.mintCode(oncall, { kind: 'login', next: '/' }, MIN, T0), T0)).not.toBeNull();
    auth.createToken('oncall', 'operator', T0);
    const code = auth.mintCode(oncall, { kind: 'login', next: '/' }, MIN, T0);
    auth.revoke('oncall', T0);
    expect(auth.redeemCode(code, T0)).toBeNull();
  });

  it('a code never gives more than its person\'s token: a viewer\'s page link signs in a viewer', () => {
    const { auth } = store();
    auth.createToken('alice', 'viewer', T0);
    const login = auth.mintCode(alice, { kind: 'login', next: '/jobs/fix', from: 'page' }, MIN, T0);
    const decline = auth.mintCode(alice, { kind: 'action', job: 'j1', action: 'decline', episode: 'j1:1' }, MIN, T0);
    expect(auth.redeemCode(login, T0)?.person).toEqual({ name: 'alice', role: 'viewer' });
    expect(auth.redeemCode(decline, T0)?.person).toEqual({ name: 'alice', role: 'viewer' });
    // An operator's token lets an operator code through as it is; a viewer code stays a viewer's.
    auth.createToken('olga', 'operator', T0);
    expect(auth.redeemCode(auth.mintCode({ name: 'olga', role: 'operator' }, { kind: 'login', next: '/' }, MIN, T0), T0)?.person.role).toBe('operator');
    expect(auth.redeemCode(auth.mintCode({ name: 'olga', role: 'viewer' }, { kind: 'login', next: '/' }, MIN, T0), T0)?.person.role).toBe('viewer');
  });

  it('capped at redeem too: a code minted before its person got a viewer token redeems as a viewer', () => {
    const { db, auth } = store();
    const code = auth.mintCode(alice, { kind: 'login', next: '/' }, MIN, T0);
    // createToken would end the code; a row written behind the store's back (an older nightshift's code) must not matter.
    db.prepare("INSERT INTO web_people (name, role, token_id, salt, hash, created) VALUES ('alice', 'viewer', '00', x'', x'', 0)").run();
    expect(auth.redeemCode(code, T0)?.person).toEqual({ name: 'alice', role: 'viewer' });
  });

  it('mints nothing for a person whose token is revoked, naming them', () => {
    const { auth } = store();
    auth.createToken('alice', 'operator', T0);
    auth.revoke('alice', T0);
    expect(() => auth.mintCode(alice, { kind: 'login', next: '/' }, MIN, T0)).toThrow(InputError);
    expect(() => auth.mintCode(alice, { kind: 'login', next: '/' }, MIN, T0)).toThrow(/web access for "alice" is revoked/);
  });

  it('revoke of a page person with no token ends their sessions and codes and refuses new codes until web token', () => {
    const { auth } = store();
    const oncall = { name: 'on-call', role: 'operator' } as const;
    const { id } = auth.startSession(oncall, T0);
    auth.mintCode(oncall, { kind: 'login', next: '/jobs/a', from: 'page' }, MIN, T0);
    const late = auth.mintCode(oncall, { kind: 'login', next: '/jobs/b', from: 'page' }, MIN, T0);
    auth.mintCode(oncall, { kind: 'login', next: '/jobs/c' }, 1, T0);
    expect(auth.revoke('on-call', T0 + 2)).toEqual({ token: false, sessions: 1, codes: 2 });
    expect(auth.session(id, T0 + 3)).toBeNull();
    expect(auth.redeemCode(late, T0 + 3)).toBeNull();
    expect(() => auth.mintCode(oncall, { kind: 'login', next: '/' }, MIN, T0 + 3)).toThrow(/"on-call" is revoked/);
    expect(auth.list()).toEqual([{ name: 'on-call', role: 'viewer', created: new Date(T0 + 2).toISOString(), last_used: null, revoked: new Date(T0 + 2).toISOString() }]);
    // Nothing left: a second revoke keeps the first time and says there was a row.
    expect(auth.revoke('on-call', T0 + 4)).toEqual({ token: true, sessions: 0, codes: 0 });
    expect(auth.list()[0]!.revoked).toBe(new Date(T0 + 2).toISOString());
    auth.createToken('on-call', 'operator', T0 + 5);
    expect(auth.redeemCode(auth.mintCode(oncall, { kind: 'login', next: '/' }, MIN, T0 + 5), T0 + 5)?.person).toEqual(oncall);
  });

  it('refuses a login that would lead off the site', () => {
    const { auth } = store();
    expect(() => auth.mintCode(alice, { kind: 'login', next: '//evil.example/' }, MIN, T0)).toThrow(InputError);
    expect(() => auth.mintCode(alice, { kind: 'login', next: 'https://evil.example/' }, MIN, T0)).toThrow(InputError);
  });
});

describe('WebAuth sessions', () => {
  const alice = { name: 'alice', role: 'viewer' } as const;

  it('gives a random csrf, stores only a hash of the id, and ends on endSession', () => {
    const { dir, auth } = store();
    const a = auth.startSession(alice, T0);
    const b = auth.startSession(alice, T0);
    expect(a.id).not.toBe(b.id);
    expect(a.session.csrf).not.toBe(b.session.csrf);
    expect(a.session.csrf.length).toBeGreaterThanOrEqual(43);
    expect(boardBytes(dir)).not.toContain(a.id);
    expect(auth.session(a.id, T0 + 1)).toEqual({ ...alice, csrf: a.session.csrf });
    auth.endSession(a.id);
    expect(auth.session(a.id, T0 + 2)).toBeNull();
    expect(auth.session(b.id, T0 + 2)).not.toBeNull();
    expect(auth.session('nss_unknown', T0)).toBeNull();
  });

  it('ends after 12 h idle; use keeps it alive up to 7 days', () => {
    const { auth } = store();
    const idle = auth.startSession(alice, T0).id;
    expect(auth.session(idle, T0 + SESSION_IDLE_MS - 1)).not.toBeNull();
    const busy = auth.startSession(alice, T0).id;
    expect(auth.session(idle, T0 + 2 * SESSION_IDLE_MS)).toBeNull();
    let t = T0;
    while (t + SESSION_IDLE_MS / 2 < T0 + SESSION_MAX_MS) {
      t += SESSION_IDLE_MS / 2;
      expect(auth.session(busy, t)).not.toBeNull();
    }
    expect(auth.session(busy, T0 + SESSION_MAX_MS)).toBeNull();
  });

  it('an open stream looking at its session (touch: false) does not keep it alive: it still ends 12 h after its last use', () => {
    const { auth } = store();
    const id = auth.startSession(alice, T0).id;
    for (let t = T0 + SESSION_IDLE_MS / 4; t < T0 + SESSION_IDLE_MS; t += SESSION_IDLE_MS / 4) expect(auth.session(id, t, false)).not.toBeNull();
    expect(auth.session(id, T0 + SESSION_IDLE_MS, false)).toBeNull();
  });

  it('a session from a page\'s login code ends 12 h after sign-in, however busy; other codes\' sessions last 7 days', () => {
    const { auth } = store();
    const page = auth.startSession(alice, T0, { from: { kind: 'login', next: '/jobs/fix', from: 'page' } }).id;
    const url = auth.startSession(alice, T0, { from: { kind: 'login', next: '/' } }).id;
    for (let t = T0; t < T0 + PAGE_SESSION_MAX_MS; t += SESSION_IDLE_MS / 4) {
      expect(auth.session(page, t)).not.toBeNull();
      expect(auth.session(url, t)).not.toBeNull();
    }
    expect(auth.session(page, T0 + PAGE_SESSION_MAX_MS)).toBeNull();
    expect(auth.session(url, T0 + PAGE_SESSION_MAX_MS)).not.toBeNull();
  });

  it('a session\'s role is capped by its person\'s token as it is now', () => {
    const { db, auth } = store();
    const { id } = auth.startSession({ name: 'bob', role: 'operator' }, T0);
    db.prepare("INSERT INTO web_people (name, role, token_id, salt, hash, created) VALUES ('bob', 'viewer', '00', x'', x'', 0)").run();
    expect(auth.session(id, T0 + 1)).toMatchObject({ name: 'bob', role: 'viewer' });
  });
});

describe('WebAuth audit', () => {
  it('writes one JSON line per action to a 0600 file, with credentials scrubbed', async () => {
    const { dir, auth } = store();
    const { token } = auth.createToken('alice', 'operator', T0);
    auth.audit({ who: 'alice', action: 'answer', job: 'fix', ok: true, ip: '127.0.0.1' }, T0);
    auth.audit({ who: 'mallory', action: 'login', ok: false, detail: `bad token ${token}` }, T0 + 1);
    await auth.close();
    const file = join(dir, 'web-audit.jsonl');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token.slice(21));
    expect(text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { time: new Date(T0).toISOString(), who: 'alice', action: 'answer', job: 'fix', ok: true, ip: '127.0.0.1' },
      { time: new Date(T0 + 1).toISOString(), who: 'mallory', action: 'login', ok: false, detail: 'bad token nst_[redacted]' },
    ]);
  });
});

describe('WebAuth: access ending, limited addresses, codes of the wrong kind', () => {
  it('cachedOnly: a token verified lately passes, any other is refused without running scrypt', async () => {
    const { auth } = store();
    const { token } = auth.createToken('alice', 'operator', T0);
    const before = scrypts();
    expect(await auth.verifyToken(token, T0, { cachedOnly: true })).toBeNull();
    expect(await auth.verifyToken(token, T0)).toEqual({ name: 'alice', role: 'operator' });
    expect(await auth.verifyToken(token, T0 + 1, { cachedOnly: true })).toEqual({ name: 'alice', role: 'operator' });
    expect(await auth.verifyToken(`${token.slice(0, -1)}x`, T0 + 1, { cachedOnly: true })).toBeNull();
    expect(scrypts() - before).toBe(1);
  });

  it('onAccessEnded names the person on revoke and on a new token', () => {
    const { auth } = store();
    const ended: string[] = [];
    auth.onAccessEnded((name) => ended.push(name));
    auth.createToken('alice', 'operator', T0);
    auth.revoke('alice', T0 + 1);
    expect(ended).toEqual(['alice', 'alice']);
  });

  it('redeemCodeOf uses only a code of the asked kind; another kind is named and left usable', () => {
    const { auth } = store();
    const person = { name: 'alice', role: 'operator' as const };
    const login = auth.mintCode(person, { kind: 'login', next: '/' }, 10 * MIN, T0);
    expect(auth.redeemCodeOf(login, 'action', T0 + 1)).toEqual({ other: 'login' });
    expect(auth.redeemCodeOf(login, 'login', T0 + 2)).toEqual({ person, purpose: { kind: 'login', next: '/' } });
    expect(auth.redeemCodeOf(login, 'login', T0 + 3)).toBeNull();
  });
});
