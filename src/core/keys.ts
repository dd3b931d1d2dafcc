import { InputError } from '../util/errors.js';

/**
 * Named keys as an xterm-256color terminal sends them. Cursor keys use the
 * normal-mode CSI form (`ESC [ A`); programs that switch to application
 * cursor mode (`ESC O A`) still accept it in practice (readline, vim, ink).
 */
const NAMED: Readonly<Record<string, string>> = {
  enter: '\r',
  return: '\r',
  escape: '\x1b',
  esc: '\x1b',
  tab: '\t',
  backtab: '\x1b[Z',
  'shift-tab': '\x1b[Z',
  backspace: '\x7f',
  delete: '\x1b[3~',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  space: ' ',
  'ctrl-backslash': '\x1c',
  f1: '\x1bOP',
  f2: '\x1bOQ',
  f3: '\x1bOR',
  f4: '\x1bOS',
  f5: '\x1b[15~',
  f6: '\x1b[17~',
  f7: '\x1b[18~',
  f8: '\x1b[19~',
  f9: '\x1b[20~',
  f10: '\x1b[21~',
  f11: '\x1b[23~',
  f12: '\x1b[24~',
};

const CTRL_LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');

/** Every multi-character name keySequence accepts (single letters and digits aside). */
export const KEY_NAMES: readonly string[] = Object.freeze([
  ...Object.keys(NAMED),
  ...CTRL_LETTERS.map((c) => `ctrl-${c}`),
]);

const EXPECTED =
  'enter, return, escape, esc, tab, backtab, shift-tab, backspace, delete, ' +
  'up, down, left, right, home, end, pageup, pagedown, space, ' +
  'ctrl-a … ctrl-z, ctrl-backslash, f1 … f12, or a single letter or digit';

/**
 * The bytes for a named key. Names are case-insensitive and `ctrl+c` is read
 * as `ctrl-c`; a single letter or digit is sent as itself, case kept.
 */
export function keySequence(name: string): string {
  if (/^[A-Za-z0-9]$/.test(name)) return name;
  const key = name.trim().toLowerCase().replace(/\+/g, '-');
  const named = NAMED[key];
  if (named !== undefined) return named;
  const ctrl = /^ctrl-([a-z])$/.exec(key);
  if (ctrl) return String.fromCharCode(ctrl[1]!.charCodeAt(0) - 96);
  throw new InputError(`unknown key ${JSON.stringify(name)}; expected one of: ${EXPECTED}`);
}
