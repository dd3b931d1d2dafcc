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
import type { AuthStore } from './types.js';

export const SESSION_COOKIE = 'nightshift_session';
export const CSRF_HEADER = 'x-csrf-token';

export type Caller = { via: 'token'; person: Person } | { via: 'session'; person: Session; sid: string };

export type Refusal = { status: 401 | 403; error: string };

export async function callerOf(req: FastifyRequest, auth: AuthStore, now: number): Promise<Caller | null> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    const person = m ? await auth.verifyToken(m[1]!, now) : null;
    return person ? { via: 'token', person } : null;
  }
  const sid = req.cookies[SESSION_COOKIE];
  const session = sid ? auth.session(sid, now) : null;
  return session && sid ? { via: 'session', person: session, sid } : null;
}

/** Null when the caller may go on; else what to answer. */
export function refusal(caller: Caller | null, need: Role, write: boolean, req: FastifyRequest): Refusal | null {
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
