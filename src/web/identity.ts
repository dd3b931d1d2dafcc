/**
 * Who is calling: a bearer token (scripts, `curl`) or the session cookie (a
 * browser). A cookie-authenticated write must also echo the session's CSRF
 * token in X-CSRF-Token: a cookie alone is what a forged cross-site form
 * would carry, the header is not.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ROLE_RANK, type Role } from '../api/command.js';
import type { Person, Session } from '../people/types.js';
import type { BearerLimit } from './bearer-limit.js';
import type { AuthStore } from './types.js';

export const SESSION_COOKIE = 'nightshift_session';
export const CSRF_HEADER = 'x-csrf-token';

export type Caller = { via: 'token'; person: Person } | { via: 'session'; person: Session; sid: string };

export type Refusal = { status: 401 | 403 | 429; error: string; retryAfter?: number };

/** What a request carries: a caller, nobody, or a bearer attempt from an address past its failures (BearerLimit). */
export type Identified = Caller | null | { limited: number };

export async function callerOf(req: FastifyRequest, auth: AuthStore, now: number, limit: BearerLimit): Promise<Identified> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const ip = ipOf(req);
    const wait = limit.retryAfter(ip, now);
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    const person = m ? await auth.verifyToken(m[1]!, now, { cachedOnly: wait > 0 }) : null;
    if (person) return { via: 'token', person };
    if (wait > 0) return { limited: wait };
    limit.failed(ip, now);
    return null;
  }
  const sid = req.cookies[SESSION_COOKIE];
  const session = sid ? auth.session(sid, now) : null;
  return session && sid ? { via: 'session', person: session, sid } : null;
}

/** Null when the caller may go on; else what to answer. */
export function refusal(caller: Identified, need: Role, write: boolean, req: FastifyRequest): Refusal | null {
  if (caller && 'limited' in caller) return { status: 429, error: `too many failed bearer tokens from this address; try again in ${caller.limited} s`, retryAfter: caller.limited };
  if (!caller) return { status: 401, error: 'sign in: a bearer token (nightshift web token NAME) or a session from a login link' };
  if (ROLE_RANK[caller.person.role] < ROLE_RANK[need]) {
    return { status: 403, error: `${caller.person.name} is a ${caller.person.role}; this needs ${need === 'local' ? 'the daemon’s own user, on its socket' : `an ${need}`}` };
  }
  if (write && caller.via === 'session' && !sameSecret(req.headers[CSRF_HEADER], caller.person.csrf)) {
    return { status: 403, error: `missing or wrong ${CSRF_HEADER} header for a cookie-authenticated write` };
  }
  return null;
}

export function refuse(reply: FastifyReply, r: Refusal): FastifyReply {
  if (r.retryAfter !== undefined) reply.header('retry-after', String(r.retryAfter));
  return reply.code(r.status).send({ error: r.error });
}

/** The client's address for the audit log and the login limiter. */
export const ipOf = (req: FastifyRequest): string => req.ip;

/** Constant-time, whatever the lengths: both sides hashed first. */
function sameSecret(given: string | string[] | undefined, want: string): boolean {
  if (typeof given !== 'string') return false;
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(given), h(want));
}
