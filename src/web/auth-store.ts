/**
 * People, tokens, single-use codes and browser sessions of the web view,
 * in the board's SQLite file (tables: schema.ts, version 3). Nothing
 * secret is stored: a token's secret only as scrypt(secret, salt), codes
 * and session ids (256 random bits each, so a plain hash is enough) only
 * as their SHA-256. Every time is the caller's `now` (ms).
 *
 * Credentials carry a prefix (nst_ token, nsc_ code, nss_ session) so a
 * leaked one is recognisable, and the audit log can scrub them.
 */
import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../board/db.js';
import { InputError } from '../util/errors.js';
import { AuditLog, type AuditEntry } from './audit.js';
import { WEB_ROLES, type CodePurpose, type Person, type RedeemedCode, type Session, type WebRole } from './types.js';

/** Names are case-insensitive: stored and shown lower-case. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
export const personNameSchema = z
  .string()
  .regex(NAME, { error: (iss) => `bad person name ${JSON.stringify(iss.input)}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit` })
  .transform((s) => s.toLowerCase());
export const webRoleSchema = z.enum(WEB_ROLES, { error: (iss) => `bad role ${JSON.stringify(iss.input)}: use ${WEB_ROLES.join(' or ')}` });

/** A login's `next` is a path on this site, never another origin (`//evil`): no open redirect. */
const codePurposeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('login'), next: z.string().regex(/^\/(?![/\\])/) }),
  z.strictObject({ kind: z.literal('action'), job: z.string().min(1), action: z.literal('decline'), episode: z.string().min(1) }),
]);

/** One value checked at the boundary: an InputError with zod's message, which names the value. */
export function checkInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new InputError(r.error.issues.map((i) => i.message).join('; '));
  return r.data;
}

/** Sessions end after 12 h without a request, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** last_used / last_seen are written at most this often: a write per request would fsync per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * scrypt's interactive defaults (16 MiB). The secret has 256 random bits,
 * so the cost is a second lock, not what keeps guessing out; verification
 * runs on the threadpool (async scrypt), so the event loop stays free.
 */
const SCRYPT: ScryptOptions = { N: 16_384, r: 8, p: 1 };
const KEY_LEN = 32;
const TOKEN = /^nst_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

const secret = (): string => randomBytes(32).toString('base64url');
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

function scryptAsync(secretPart: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(secretPart, salt, KEY_LEN, SCRYPT, (e, key) => (e ? reject(e) : resolve(key))));
}

interface PersonRow {
  name: string;
  role: WebRole;
  token_id: string;
  salt: Buffer;
  hash: Buffer;
  created: number;
  last_used: number | null;
  revoked: number | null;
}

interface CodeRow {
  person: string;
  role: WebRole;
  purpose: string;
  expires: number;
  used: number | null;
}

interface SessionRow {
  person: string;
  role: WebRole;
  csrf: string;
  started: number;
  last_seen: number;
}

export interface TokenListing {
  name: string;
  role: WebRole;
  created: string;
  last_used: string | null;
  revoked: string | null;
}

export class WebAuth {
  private readonly log: AuditLog;
  private readonly s: ReturnType<typeof statements>;

  constructor(
    private readonly db: Database,
    opts: { auditPath: string; onAuditError?: (e: Error) => void },
  ) {
    this.log = new AuditLog(opts.auditPath, opts.onAuditError);
    this.s = statements(db);
  }

  /** A new secret for NAME: the old token, its sessions and its unused codes (old login URLs) stop working. */
  createToken(name: string, role: WebRole, now: number): { token: string } {
    const person = checkInput(personNameSchema, name);
    const r = checkInput(webRoleSchema, role);
    const id = randomBytes(8).toString('hex');
    const part = secret();
    const salt = randomBytes(16);
    // Synchronous on purpose: only the control socket makes tokens, and seldom.
    const hash = scryptSync(part, salt, KEY_LEN, SCRYPT);
    this.db.transaction(() => {
      this.s.upsertPerson.run({ name: person, role: r, token_id: id, salt, hash, created: now });
      this.endAccess(person);
    })();
    return { token: `nst_${id}_${part}` };
  }

  /** false when NAME has no token; else NAME's token, sessions and unused codes end. */
  revoke(name: string, now: number): boolean {
    const person = checkInput(personNameSchema, name);
    return this.db.transaction(() => {
      if (this.s.revoke.run(now, person).changes === 0) return false;
      this.endAccess(person);
      return true;
    })();
  }

  list(): TokenListing[] {
    return (this.s.list.all() as PersonRow[]).map((r) => ({ name: r.name, role: r.role, created: iso(r.created)!, last_used: iso(r.last_used), revoked: iso(r.revoked) }));
  }

  async verifyToken(token: string, now: number): Promise<Person | null> {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const [, id, part] = m as unknown as [string, string, string];
    const row = this.s.byTokenId.get(id) as PersonRow | undefined;
    if (!row || row.revoked !== null) return null;
    const hash = await scryptAsync(part, row.salt);
    if (!timingSafeEqual(hash, row.hash)) return null;
    // Revoked or replaced while scrypt ran on the threadpool: the row read before is stale.
    const still = this.s.byTokenId.get(id) as PersonRow | undefined;
    if (!still || still.revoked !== null) return null;
    if (still.last_used === null || now - still.last_used >= TOUCH_EVERY_MS) this.s.touchPerson.run(now, still.name);
    return { name: still.name, role: still.role };
  }

  /**
   * A single-use code for PERSON (who may have no token: the pager's on-call
   * identity). Also clears codes past their expiry, so the table stays small.
   */
  mintCode(person: Person, purpose: CodePurpose, ttlMs: number, now: number): string {
    const who = checkInput(personNameSchema, person.name);
    const what = checkInput(codePurposeSchema, purpose);
    const code = `nsc_${secret()}`;
    this.s.pruneCodes.run(now);
    this.s.insertCode.run({ hash: sha256(code), person: who, role: checkInput(webRoleSchema, person.role), purpose: JSON.stringify(what), expires: now + ttlMs });
    return code;
  }

  /** The code's person and purpose, once; null when unknown, used, expired or its person's token is revoked. */
  redeemCode(code: string, now: number): RedeemedCode | null {
    // Looked up by its SHA-256: a timing difference in the index says nothing about the code itself.
    const hash = sha256(code);
    const row = this.s.codeByHash.get(hash) as CodeRow | undefined;
    if (!row || row.used !== null || row.expires <= now || this.revoked(row.person)) return null;
    // The guarded UPDATE is the claim: of two redemptions racing, one wins.
    if (this.s.useCode.run(now, hash).changes !== 1) return null;
    const purpose = codePurposeSchema.safeParse(JSON.parse(row.purpose));
    return purpose.success ? { person: { name: row.person, role: row.role }, purpose: purpose.data } : null;
  }

  /** A new browser session: its id goes in the cookie, never stored but as a hash. */
  startSession(person: Person, now: number): { id: string; session: Session } {
    const name = checkInput(personNameSchema, person.name);
    const role = checkInput(webRoleSchema, person.role);
    const id = `nss_${secret()}`;
    const csrf = secret();
    this.s.pruneSessions.run(now - SESSION_IDLE_MS, now - SESSION_MAX_MS);
    this.s.insertSession.run({ hash: sha256(id), person: name, role, csrf, started: now });
    return { id, session: { name, role, csrf } };
  }

  /** The session, or null when unknown, idle 12 h, 7 days old, or its person's token is revoked. */
  session(id: string, now: number): Session | null {
    const hash = sha256(id);
    const row = this.s.sessionByHash.get(hash) as SessionRow | undefined;
    if (!row || now - row.last_seen >= SESSION_IDLE_MS || now - row.started >= SESSION_MAX_MS || this.revoked(row.person)) return null;
    if (now - row.last_seen >= TOUCH_EVERY_MS) this.s.touchSession.run(now, hash);
    return { name: row.person, role: row.role, csrf: row.csrf };
  }

  endSession(id: string): void {
    this.s.deleteSession.run(sha256(id));
  }

  audit(entry: AuditEntry, now: number): void {
    this.log.write(entry, now);
  }

  /** Flushes the audit log; the database is the board's to close. */
  close(): Promise<void> {
    return this.log.close();
  }

  /** A person with a token row that is revoked; no row (an on-call identity) is not revoked. */
  private revoked(name: string): boolean {
    const row = this.s.personByName.get(name) as { revoked: number | null } | undefined;
    return row !== undefined && row.revoked !== null;
  }

  private endAccess(name: string): void {
    this.s.endSessions.run(name);
    this.s.endCodes.run(name);
  }
}

function statements(db: Database) {
  return {
    upsertPerson: db.prepare(
      `INSERT INTO web_people (name, role, token_id, salt, hash, created) VALUES (@name, @role, @token_id, @salt, @hash, @created)
       ON CONFLICT (name) DO UPDATE SET role = excluded.role, token_id = excluded.token_id, salt = excluded.salt, hash = excluded.hash,
         created = excluded.created, last_used = NULL, revoked = NULL`,
    ),
    // A second revoke keeps the first time: that is when access ended.
    revoke: db.prepare('UPDATE web_people SET revoked = COALESCE(revoked, ?) WHERE name = ?'),
    list: db.prepare('SELECT name, role, created, last_used, revoked FROM web_people ORDER BY name'),
    byTokenId: db.prepare('SELECT * FROM web_people WHERE token_id = ?'),
    personByName: db.prepare('SELECT revoked FROM web_people WHERE name = ?'),
    touchPerson: db.prepare('UPDATE web_people SET last_used = ? WHERE name = ?'),
    insertCode: db.prepare('INSERT INTO web_codes (hash, person, role, purpose, expires) VALUES (@hash, @person, @role, @purpose, @expires)'),
    codeByHash: db.prepare('SELECT person, role, purpose, expires, used FROM web_codes WHERE hash = ?'),
    useCode: db.prepare('UPDATE web_codes SET used = ? WHERE hash = ? AND used IS NULL'),
    pruneCodes: db.prepare('DELETE FROM web_codes WHERE expires <= ?'),
    endCodes: db.prepare('DELETE FROM web_codes WHERE person = ? AND used IS NULL'),
    insertSession: db.prepare(
      'INSERT INTO web_sessions (hash, person, role, csrf, started, last_seen) VALUES (@hash, @person, @role, @csrf, @started, @started)',
    ),
    sessionByHash: db.prepare('SELECT person, role, csrf, started, last_seen FROM web_sessions WHERE hash = ?'),
    touchSession: db.prepare('UPDATE web_sessions SET last_seen = ? WHERE hash = ?'),
    pruneSessions: db.prepare('DELETE FROM web_sessions WHERE last_seen <= ? OR started <= ?'),
    endSessions: db.prepare('DELETE FROM web_sessions WHERE person = ?'),
    deleteSession: db.prepare('DELETE FROM web_sessions WHERE hash = ?'),
  };
}
