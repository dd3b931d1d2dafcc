/**
 * The fleet's names, as the CLI checks them before anything is opened: a
 * board URL and a host name. Apart from db.ts so a verb that only checks
 * its flags does not load the PostgreSQL client.
 */
import { z } from 'zod';
import { BOARD_URL_PROBLEM, isBoardUrl } from './board-url.js';

export { parseBoardUrl, safeUrl } from './board-url.js';

/** `--board` / NIGHTSHIFT_BOARD: a PostgreSQL URL. */
export const boardUrlSchema = z.string().refine(isBoardUrl, { message: BOARD_URL_PROBLEM });

/** A host name: what `--host` and `submit --host` take. Kept to what reads well in a board and a log. */
export const hostNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, . _ - (up to 63, starting with a letter or digit)');


