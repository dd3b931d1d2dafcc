/**
 * People, tokens, single-use codes and browser sessions of the web view,
 * in the board's SQLite file (tables: schema.ts, versions 3 and 4). Nothing
 * secret is stored: a token's secret only as scrypt(secret, salt), codes
 * and session ids (256 random bits each, so a plain hash is enough) only
 * as their SHA-256. Every time is the caller's `now` (ms).
 *
 * Credentials carry a prefix (nst_ token, nsc_ code, nss_ session) so a
 * leaked one is recognisable, and the audit log can scrub them.
 */
import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Database } from '../board/db.js';
import { InputError } from '../util/errors.js';
import { Emitter, type Event } from '../util/event.js';
import { AuditLog, type AuditEntry } from './audit.js';
import { checkInput, codePurposeSchema, personNameSchema, webRoleSchema } from './auth-input.js';
import { statements, type CodeRow, type PersonRow, type SessionRow } from './auth-sql.js';
import type { CodePurpose, Person, RedeemedCode, Session, SessionOrigin, WebRole } from './types.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Sessions end after 12 h without a request, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/**
 * A session from a page's link ends 12 h after sign-in: its code went
 * through a notifier (ntfy, Slack, a webhook) that others may read, and
 * it is often the on-call identity, which no token stands behind.
 */
export const PAGE_SESSION_MAX_MS = 12 * 3600_000;
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

/** Roles by what they may do, so the lower of two is the one with less. */
const ROLE_RANK: Record<WebRole, number> = { viewer: 0, operator: 1 };
const lowerRole = (a: WebRole, b: WebRole): WebRole => (ROLE_RANK[a] <= ROLE_RANK[b] ? a : b);

/** What revoke ended. `token` false: NAME had no row in web_people, only sessions or codes (a page's on-call identity). */
export interface Revoked {
  token: boolean;
  sessions: number;
  codes: number;
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
  private readonly verified = new VerifiedTokens();
  private readonly accessEnded = new Emitter<string>();
  /** A person's access ended (revoked, or a new token replaced theirs): their open streams must close too. */
  readonly onAccessEnded: Event<string> = this.accessEnded.event;

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
    this.verified.forget(person);
    this.accessEnded.fire(person);
    return { token: `nst_${id}_${part}` };
  }

  /**
   * NAME's token, sessions and unused codes end. A name with no token but
   * with sessions or codes (a page's on-call identity) gets a revoked row
   * with no token, so new page codes for it are refused until
   * `web token NAME`. null when NAME has nothing at all.
   */
  revoke(name: string, now: number): Revoked | null {
    const person = checkInput(personNameSchema, name);
    this.verified.forget(person);
    const done = this.db.transaction((): Revoked | null => {
      // Dead sessions and codes are cleared first, so the counts say what really ended.
      this.prune(now);
      const token = this.s.revoke.run(now, person).changes === 1;
      const ended = this.endAccess(person);
      if (!token && ended.sessions + ended.codes === 0) return null;
      if (!token) this.s.insertRevoked.run({ name: person, token_id: `none:${person}`, created: now, revoked: now });
      return { token, ...ended };
    })();
    this.accessEnded.fire(person);
    return done;
  }

  list(): TokenListing[] {
    return (this.s.list.all() as PersonRow[]).map((r) => ({ name: r.name, role: r.role, created: iso(r.created)!, last_used: iso(r.last_used), revoked: iso(r.revoked) }));
  }

  /** `cachedOnly`: a token not verified in the last TOKEN_CACHE_MS is refused without running scrypt. */
  async verifyToken(token: string, now: number, opts: { cachedOnly?: boolean } = {}): Promise<Person | null> {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const [, id, part] = m as unknown as [string, string, string];
    const key = sha256(token);
    if (!this.verified.has(key, id, now)) {
      if (opts.cachedOnly) return null;
      const name = await this.secretMatches(id, part);
      if (name === null) return null;
      this.verified.add(key, name, id, now);
    }
    // Read again, cached or not: revoked or replaced since (or while scrypt ran on the threadpool).
    const still = this.s.byTokenId.get(id) as PersonRow | undefined;
    if (!still || still.revoked !== null) return null;
    if (still.last_used === null || now - still.last_used >= TOUCH_EVERY_MS) this.s.touchPerson.run(now, still.name);
    return { name: still.name, role: still.role };
  }

  /** The token's person when its secret matches a live row; the one place scrypt runs for a request. */
  private async secretMatches(id: string, part: string): Promise<string | null> {
    const row = this.s.byTokenId.get(id) as PersonRow | undefined;
    if (!row || row.revoked !== null) return null;
    const hash = await scryptAsync(part, row.salt);
    return timingSafeEqual(hash, row.hash) ? row.name : null;
  }

  /**
   * A single-use code for PERSON (who may have no token: the pager's on-call
   * identity), with at most the role of PERSON's token; refused (InputError)
   * when that token is revoked. Also clears codes past their expiry, so the
   * table stays small.
   */
  mintCode(person: Person, purpose: CodePurpose, ttlMs: number, now: number): string {
    const asked = { name: checkInput(personNameSchema, person.name), role: checkInput(webRoleSchema, person.role) };
    const what = checkInput(codePurposeSchema, purpose);
    const who = this.capped(asked);
    if (!who) throw new InputError(`web access for ${JSON.stringify(asked.name)} is revoked: no code is made for them until nightshift web token ${asked.name}`);
    const code = `nsc_${secret()}`;
    this.s.pruneCodes.run(now);
    this.s.insertCode.run({ hash: sha256(code), person: who.name, role: who.role, purpose: JSON.stringify(what), expires: now + ttlMs });
    return code;
  }

  /**
   * The code's person and purpose, once; null when unknown, used, expired or
   * its person's token is revoked. The role is capped by the person's token
   * as it is now, whatever the code was minted with.
   */
  redeemCode(code: string, now: number): RedeemedCode | null {
    return this.redeemed(code, now, null) as RedeemedCode | null;
  }

  /**
   * Like redeemCode, but only a code of purpose KIND is used up: another
   * kind's answers `{ other: its kind }` and stays as it was, so a sign-in
   * link posted to an action's address still signs in afterwards.
   */
  redeemCodeOf(code: string, kind: CodePurpose['kind'], now: number): RedeemedCode | { other: CodePurpose['kind'] } | null {
    return this.redeemed(code, now, kind);
  }

  private redeemed(code: string, now: number, kind: CodePurpose['kind'] | null): RedeemedCode | { other: CodePurpose['kind'] } | null {
    // Looked up by its SHA-256: a timing difference in the index says nothing about the code itself.
    const hash = sha256(code);
    const row = this.s.codeByHash.get(hash) as CodeRow | undefined;
    const person = row && row.used === null && row.expires > now ? this.capped({ name: row.person, role: row.role }) : null;
    if (!row || !person) return null;
    const purpose = codePurposeSchema.safeParse(JSON.parse(row.purpose));
    if (purpose.success && kind !== null && purpose.data.kind !== kind) return { other: purpose.data.kind };
    // The guarded UPDATE is the claim: of two redemptions racing, one wins.
    if (this.s.useCode.run(now, hash).changes !== 1) return null;
    return purpose.success ? { person, purpose: purpose.data } : null;
  }

  /**
   * A new browser session: its id goes in the cookie, never stored but as a
   * hash. `origin.from`: the code it was redeemed from; a page's login code
   * gives a session of PAGE_SESSION_MAX_MS, anything else SESSION_MAX_MS.
   */
  startSession(person: Person, now: number, origin: SessionOrigin = {}): { id: string; session: Session } {
    const name = checkInput(personNameSchema, person.name);
    const role = checkInput(webRoleSchema, person.role);
    const id = `nss_${secret()}`;
    const csrf = secret();
    const fromPage = origin.from?.kind === 'login' && origin.from.from === 'page';
    this.prune(now);
    this.s.insertSession.run({ hash: sha256(id), person: name, role, csrf, started: now, max_until: now + (fromPage ? PAGE_SESSION_MAX_MS : SESSION_MAX_MS) });
    return { id, session: { name, role, csrf } };
  }

  /**
   * The session, or null when unknown, idle 12 h, past its own end (7 days,
   * 12 h from a page), or its person's token is revoked. Its role is capped
   * by the person's token as it is now. `touch: false` only looks: an open
   * stream asking whether its session still holds is not the person's use.
   */
  session(id: string, now: number, touch = true): Session | null {
    const hash = sha256(id);
    const row = this.s.sessionByHash.get(hash) as SessionRow | undefined;
    if (!row || now - row.last_seen >= SESSION_IDLE_MS || now >= row.max_until) return null;
    const person = this.capped({ name: row.person, role: row.role });
    if (!person) return null;
    if (touch && now - row.last_seen >= TOUCH_EVERY_MS) this.s.touchSession.run(now, hash);
    return { ...person, csrf: row.csrf };
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

  /**
   * PERSON as their token row allows: null when revoked, else the lower of
   * the two roles. A name with no row (the on-call identity) keeps the role
   * it was given: only `web token NAME` makes a row that can cap it.
   */
  private capped(person: Person): Person | null {
    const row = this.s.personByName.get(person.name) as { role: WebRole; revoked: number | null } | undefined;
    if (!row) return person;
    return row.revoked === null ? { name: person.name, role: lowerRole(person.role, row.role) } : null;
  }

  private endAccess(name: string): { sessions: number; codes: number } {
    return { sessions: this.s.endSessions.run(name).changes, codes: this.s.endCodes.run(name).changes };
  }

  private prune(now: number): void {
    this.s.pruneCodes.run(now);
    this.s.pruneSessions.run(now - SESSION_IDLE_MS, now);
  }
}
