/**
 * The fleet's names, as the CLI checks them before anything is opened: a
 * board URL and a host name. Apart from db.ts so a verb that only checks
 * its flags does not load the PostgreSQL client.
 */
import { z } from 'zod';
import { InputError } from '../util/errors.js';

/** `--board` / NIGHTSHIFT_BOARD: a PostgreSQL URL. */
export const boardUrlSchema = z
  .string()
  .refine((s) => /^postgres(?:ql)?:\/\/\S+$/i.test(s), { message: 'must be a postgres:// URL' });

/** A host name: what `--host` and `submit --host` take. Kept to what reads well in a board and a log. */
export const hostNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, . _ - (up to 63, starting with a letter or digit)');

/** The URL with its password replaced, for messages and logs. */
export function safeUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/i, '$1:***@');
}

export function parseBoardUrl(url: string, from: string): string {
  const r = boardUrlSchema.safeParse(url);
  if (!r.success) throw new InputError(`${from} "${safeUrl(url)}" ${r.error.issues[0]!.message}`);
  return url;
}

