/**
 * The web view's people, managed from the control socket only (role
 * `local`, no HTTP route): whoever can reach the socket is the daemon's own
 * user, so only they hand out and take back tokens. Each call goes to the
 * web audit log, as the socket caller.
 */
import { z } from 'zod';
import { byLabel } from '../../supervisor/person-acts.js';
import { InputError } from '../../util/errors.js';
import { personNameSchema, webRoleSchema } from '../../web/auth-input.js';
import { WEB_ROLES } from '../../web/types.js';
import { defineCommand } from '../command.js';
import type { Daemon } from '../daemon.js';

/** A login URL works once, for 10 minutes (issue 11). */
export const LOGIN_CODE_MS = 10 * 60_000;

const webRole = z.enum(WEB_ROLES);
const caller = z.string().optional();

export const tokenMadeSchema = z.object({ name: z.string(), token: z.string(), login_url: z.string().nullable(), role: webRole });
/** `token` false: NAME had no token, and what ended was a page person's sessions and codes. */
export const revokedSchema = z.object({ name: z.string(), revoked: z.literal(true), token: z.boolean(), sessions: z.number(), codes: z.number() });
export const peopleSchema = z.object({
  people: z.array(z.object({ name: z.string(), role: webRole, created: z.string(), last_used: z.string().nullable(), revoked: z.string().nullable() })),
});

/** A URL that signs NAME in once and opens the board; null when the daemon has no web address. */
function loginUrl(d: Daemon, name: string, role: z.output<typeof webRole>, now: number): string | null {
  if (d.webBaseUrl === null) return null;
  const code = d.webAuth.mintCode({ name, role }, { kind: 'login', next: '/' }, LOGIN_CODE_MS, now);
  return `${d.webBaseUrl.replace(/\/+$/, '')}/login?code=${code}`;
}

export const WEB_COMMANDS = [
  defineCommand({
    name: 'web-token',
    usage: '{name, role?: viewer|operator, who?}',
    role: 'local',
    args: z.strictObject({ name: personNameSchema, role: webRoleSchema.optional(), who: caller }),
    result: tokenMadeSchema,
    handler: (d, a) => {
      const now = Date.now();
      const role = a.role ?? 'operator';
      const { token } = d.webAuth.createToken(a.name, role, now);
      d.webAuth.audit({ who: byLabel(a.who || 'unknown'), action: 'web-token', ok: true, detail: `${a.name} as ${role}` }, now);
      return { name: a.name, token, login_url: loginUrl(d, a.name, role, now), role };
    },
  }),
  defineCommand({
    name: 'web-revoke',
    usage: '{name, who?}',
    role: 'local',
    args: z.strictObject({ name: personNameSchema, who: caller }),
    result: revokedSchema,
    handler: (d, a) => {
      const now = Date.now();
      const done = d.webAuth.revoke(a.name, now);
      const detail = done ? `${a.name}${done.token ? '' : ' (no token)'}: sessions ${done.sessions}, unused codes ${done.codes}` : a.name;
      d.webAuth.audit({ who: byLabel(a.who || 'unknown'), action: 'web-revoke', ok: done !== null, detail }, now);
      if (!done) throw new InputError(`no web token for ${JSON.stringify(a.name)}, and no sessions or codes; see nightshift web list`);
      return { name: a.name, revoked: true as const, ...done };
    },
  }),
  defineCommand({
    name: 'web-list',
    usage: '{who?}',
    role: 'local',
    args: z.strictObject({ who: caller }),
    result: peopleSchema,
    handler: (d, a) => {
      d.webAuth.audit({ who: byLabel(a.who || 'unknown'), action: 'web-list', ok: true }, Date.now());
      return { people: d.webAuth.list() };
    },
  }),
];
