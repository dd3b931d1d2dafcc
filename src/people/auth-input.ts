/** What the web store and its verbs accept at the boundary: person names, roles, and what a code is for. */
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import { WEB_ROLES } from './types.js';

/** Names are case-insensitive: stored and shown lower-case. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
export const personNameSchema = z
  .string()
  .regex(NAME, { error: (iss) => `bad person name ${JSON.stringify(iss.input)}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit` })
  .transform((s) => s.toLowerCase());
export const webRoleSchema = z.enum(WEB_ROLES, { error: (iss) => `bad role ${JSON.stringify(iss.input)}: use ${WEB_ROLES.join(' or ')}` });

/** A login's `next` is a path on this site, never another origin (`//evil`): no open redirect. */
export const codePurposeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('login'), next: z.string().regex(/^\/(?![/\\])/), from: z.literal('page').optional() }),
  z.strictObject({ kind: z.literal('action'), job: z.string().min(1), action: z.literal('decline'), episode: z.string().min(1) }),
]);

/** One value checked at the boundary: an InputError with zod's message, which names the value. */
export function checkInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new InputError(r.error.issues.map((i) => i.message).join('; '));
  return r.data;
}
