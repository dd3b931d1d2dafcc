/**
 * Signing in and out. A login code (from `web token`'s URL or a page's
 * link) is single-use and turns into a session cookie at once, so the code
 * leaves the address bar with the redirect. A token can be typed into the
 * sign-in form instead. All of it is rate-limited per client address.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { API, type ApiDeps } from './api.js';
import { callerOf, ipOf, refusal, refuse, SESSION_COOKIE } from './identity.js';
import type { Person, SessionOrigin } from '../people/types.js';

/** Ten tries a minute from one address: plenty for a person, nothing for guessing. */
export const LOGIN_LIMIT = { max: 10, timeWindow: 60_000 };
/** The cookie's own lifetime; the store ends the session sooner when idle or revoked. */
const COOKIE_MAX_AGE_S = 7 * 24 * 3600;

const loginBody = z.strictObject({ token: z.string().min(1).max(512) });

export function registerSessionRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const limited = { config: { rateLimit: LOGIN_LIMIT } };
  app.get('/login', limited, (req, reply) => redeem(req, reply, deps, null));
  app.post(`${API}/login`, limited, async (req, reply) => {
    const body = loginBody.safeParse(req.body);
    const person = body.success ? await deps.auth.verifyToken(body.data.token, deps.now()) : null;
    deps.auth.audit({ who: person?.name ?? '-', action: 'login', ok: person !== null, ip: ipOf(req), ...(person ? {} : { detail: 'unknown or revoked token' }) }, deps.now());
    if (!person) return reply.code(401).send({ error: 'unknown or revoked token' });
    const session = signIn(reply, deps, person);
    return reply.send({ name: session.name, role: session.role, csrf: session.csrf });
  });
  app.post(`${API}/logout`, async (req, reply) => {
    const found = await callerOf(req, deps.auth, deps.now(), deps.bearerLimit);
    // Signing someone out is a cookie write too: another site must not do it for them.
    const r = refusal(found, 'viewer', true, req);
    if (found && r) return refuse(reply, r);
    const caller = found && 'person' in found ? found : null;
    if (caller?.via === 'session') {
      deps.auth.endSession(caller.sid);
      deps.streams.closeSession(caller.sid);
    }
    deps.auth.audit({ who: caller?.person.name ?? '-', action: 'logout', ok: true, ip: ipOf(req) }, deps.now());
    return reply.clearCookie(SESSION_COOKIE, { path: '/' }).send({ signed_out: true });
  });
  app.get(`${API}/me`, async (req, reply) => {
    const caller = await callerOf(req, deps.auth, deps.now(), deps.bearerLimit);
    if (caller && 'limited' in caller) return refuse(reply, refusal(caller, 'viewer', false, req)!);
    if (!caller) return reply.code(401).send({ error: 'not signed in' });
    return reply.send({ name: caller.person.name, role: caller.person.role, csrf: caller.via === 'session' ? caller.person.csrf : null });
  });
}

/**
 * `?code=` on /login or on a job page: redeem it, set the cookie, and
 * redirect to the page without the code. `page`: the job page it came on.
 */
export function redeem(req: FastifyRequest, reply: FastifyReply, deps: ApiDeps, page: string | null): FastifyReply {
  const code = (req.query as { code?: unknown }).code;
  // An action's code (a Decline button's) opened as a link is not spent: it may still be tapped.
  const found = typeof code === 'string' && code.length <= 256 ? deps.auth.redeemCodeOf(code, 'login', deps.now()) : null;
  const got = found && 'person' in found ? found : null;
  const ok = got !== null && got.purpose.kind === 'login';
  deps.auth.audit({ who: got?.person.name ?? '-', action: 'login-code', ok, ip: ipOf(req), ...(ok ? {} : { detail: 'unknown, used or expired code' }) }, deps.now());
  if (!ok || got.purpose.kind !== 'login') {
    // An old notification tapped again by someone already signed in: the page, not an error.
    const sid = req.cookies[SESSION_COOKIE];
    if (page && sid && deps.auth.session(sid, deps.now())) return reply.redirect(safeNext(page), 303);
    return reply.code(401).type('text/html').send(expiredPage());
  }
  signIn(reply, deps, got.person, { from: got.purpose });
  return reply.redirect(safeNext(page ?? got.purpose.next), 303);
}

/** `origin`: the code it came from; a page's code gives a shorter session than a token does. */
function signIn(reply: FastifyReply, deps: ApiDeps, person: Person, origin?: SessionOrigin) {
  const { id, session } = deps.auth.startSession(person, deps.now(), origin);
  // Lax, not Strict: a tap on a page's link is a cross-site navigation, and the redirect after it must carry the cookie.
  reply.setCookie(SESSION_COOKIE, id, { path: '/', httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: COOKIE_MAX_AGE_S });
  return session;
}

/** Only a path on this server: never `//elsewhere` or a scheme. */
function safeNext(next: string): string {
  return /^\/(?![/\\])[^\s]*$/.test(next) ? next : '/';
}

function expiredPage(): string {
  return '<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>nightshift: link expired</title><link rel="stylesheet" href="/assets/app.css"><main><h1>This link has expired or was used</h1><p>Login links work once. Ask for a new one (<code>nightshift web token NAME</code>), or <a href="/">sign in with a token</a>.</p></main>';
}
