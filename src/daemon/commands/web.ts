/**
 * The web view's people, managed from the control socket only (role
 * `local`, no HTTP route): whoever can reach the socket is the daemon's own
 * user, so only they hand out and take back tokens. Each call goes to the
 * web audit log, as the socket caller.
 */
import type { CommandHost } from '../../api/host.js';
import type { WebRole } from '../../people/types.js';
import { byLabel } from '../../supervisor/person-acts.js';
import { InputError } from '../../util/errors.js';
import type { Handlers } from '../command.js';

/** A login URL works once, for 10 minutes. */
export const LOGIN_CODE_MS = 10 * 60_000;

/** A URL that signs NAME in once and opens the board; null when the daemon has no web address. */
function loginUrl(h: CommandHost, name: string, role: WebRole, now: number): string | null {
  if (h.webBaseUrl === null) return null;
  const code = h.webAuth.mintCode({ name, role }, { kind: 'login', next: '/' }, LOGIN_CODE_MS, now);
  return `${h.webBaseUrl.replace(/\/+$/, '')}/login?code=${code}`;
}

export const WEB_HANDLERS: Pick<Handlers, 'web-token' | 'web-revoke' | 'web-list'> = {
  'web-token': (h, a) => {
    const now = Date.now();
    const role = a.role ?? 'operator';
    const { token } = h.webAuth.createToken(a.name, role, now);
    h.webAuth.audit({ who: byLabel(a.who || 'unknown'), action: 'web-token', ok: true, detail: `${a.name} as ${role}` }, now);
    return { name: a.name, token, login_url: loginUrl(h, a.name, role, now), role };
  },
  'web-revoke': (h, a) => {
    const now = Date.now();
    const done = h.webAuth.revoke(a.name, now);
    const detail = done ? `${a.name}${done.token ? '' : ' (no token)'}: sessions ${done.sessions}, unused codes ${done.codes}` : a.name;
    h.webAuth.audit({ who: byLabel(a.who || 'unknown'), action: 'web-revoke', ok: done !== null, detail }, now);
    if (!done) throw new InputError(`no web token for ${JSON.stringify(a.name)}, and no sessions or codes; see nightshift web list`);
    return { name: a.name, revoked: true as const, ...done };
  },
  'web-list': (h, a) => {
    h.webAuth.audit({ who: byLabel(a.who || 'unknown'), action: 'web-list', ok: true }, Date.now());
    return { people: h.webAuth.list() };
  },
};
