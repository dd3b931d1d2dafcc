/**
 * A fleet board's URL, as the CLI checks `--board` before anything is
 * opened. Apart from names.ts, which needs zod: a `board` call checks the
 * URL without loading it.
 */
import { InputError } from '../util/errors.js';

const BOARD_URL = /^postgres(?:ql)?:\/\/\S+$/i;
export const BOARD_URL_PROBLEM = 'must be a postgres:// URL';

export const isBoardUrl = (s: string): boolean => BOARD_URL.test(s);

/** The URL with its password replaced, for messages and logs. */
export function safeUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/i, '$1:***@');
}

export function parseBoardUrl(url: string, from: string): string {
  if (!isBoardUrl(url)) throw new InputError(`${from} "${safeUrl(url)}" ${BOARD_URL_PROBLEM}`);
  return url;
}
