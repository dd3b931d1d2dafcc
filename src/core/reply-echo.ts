/**
 * A terminal's replies to a program's queries, as the tty echoes them when
 * they arrive in cooked mode with echo on: ECHOCTL shows ESC as `^[` and BEL
 * as `^G`, so `ESC[?1;2c` lands after the program's question as
 * `^[[?1;2c`. A reply that is there hides the question from every rule that
 * wants it at the end of the screen, and a program can print such a query
 * on purpose. The rows the watchdog reads are taken without them.
 *
 * The replies are those xterm (and so the daemon's headless screen) and the
 * common terminals send: DA1 `[?…c`, DA2 `[>…c`, DSR `[0n`, CPR `[r;cR` and
 * DECXCPR `[?r;cR`, DECRQM `[?…$y`, window size `[8;r;ct`, the kitty
 * keyboard `[?…u`, the DCS replies (DECRQSS `P1$r…`, XTVERSION `P>|…`, DA3
 * `P!|…`) and OSC colour replies (`]10;rgb:…`, `]11;…`, `]4;n;…`).
 */
import type { ScreenSnapshot } from './screen-snapshot.js';

/**
 * The replies, one pattern for two spellings: `esc`, `bel` and `other` (a
 * character that is not the start of `esc`) as the bytes arrive, or as the
 * tty echoes them.
 */
function replies(esc: string, bel: string, other: string): string {
  const end = String.raw`(?:${esc}\\|${bel})`;
  const csi = String.raw`${esc}\[(?:[?>][\d;]*c|\??[\d;]*R|\d*n|[\d;]*t|\?[\d;]*u|\??[\d;]*\$y)`;
  const dcs = String.raw`${esc}P[\d!>]${other}{0,80}?${end}`;
  const osc = String.raw`${esc}\](?:1[0-9]|4;\d+);${other}{0,80}?${end}`;
  return `${csi}|${dcs}|${osc}`;
}

const REPLY_ECHO = new RegExp(replies(String.raw`\^\[`, String.raw`\^G`, '[^^]'), 'g');
const REPLIES = new RegExp(`^(?:${replies(String.raw`\x1b`, String.raw`\x07`, String.raw`[^\x1b]`)})+$`);

/**
 * Whether `data` is nothing but replies (a terminal's own answers to the
 * program's queries, as a person's terminal sends them with their keys),
 * not something a person typed. A modified F3 (`ESC[1;5R`) reads as a cursor
 * position too: at a line prompt it is dropped the same way, which costs
 * nothing there.
 */
export function isTerminalReply(data: string): boolean {
  return data.length > 2 && data.charCodeAt(0) === 0x1b && REPLIES.test(data);
}

/** The row without any echoed reply, and how many characters left before column `x`. */
export function stripReplyEchoes(row: string, x = 0): { row: string; before: number } {
  let before = 0;
  const out = row.replace(REPLY_ECHO, (m: string, at: number) => {
    if (at < x) before += Math.min(m.length, x - at);
    return '';
  });
  return { row: out === row ? row : out.trimEnd(), before };
}

/**
 * The snapshot as the rules should read it: echoed replies taken out of its
 * rows and the cursor moved back over what was taken. A row filled to the
 * last column goes on in the next (the tty wraps a long echo): such rows are
 * read as one line and laid out again. The same snapshot when no row holds
 * `^[` (the usual case: one `includes` a row). The fingerprint and styles
 * stay: the echo is still a change on screen.
 */
export function withoutReplyEchoes(snap: ScreenSnapshot): ScreenSnapshot {
  if (!snap.rows.some((r) => r.includes('^['))) return snap;
  const { cols } = snap;
  const rows = [...snap.rows];
  let cursor = snap.cursor;
  for (let top = 0; top < rows.length; ) {
    let bottom = top;
    while (bottom + 1 < rows.length && rows[bottom]!.length >= cols) bottom++;
    const line = rows.slice(top, bottom + 1).join('');
    const onLine = cursor.y >= top && cursor.y <= bottom;
    const at = onLine ? (cursor.y - top) * cols + cursor.x : 0;
    const s = line.includes('^[') ? stripReplyEchoes(line, at) : undefined;
    if (s && s.row !== line) {
      for (let y = top; y <= bottom; y++) rows[y] = s.row.slice((y - top) * cols, (y - top + 1) * cols).trimEnd();
      if (onLine) cursor = placeOnLine(top, at - s.before, cols);
    }
    top = bottom + 1;
  }
  return { ...snap, rows, cursor };
}

/**
 * withoutReplyEchoes for the snapshots of one screen, one after the other:
 * a row the last snapshot had (the same string) is not searched again. A
 * spinner's look changes one row of forty.
 */
export class ReplyEchoFilter {
  private rows: readonly string[] = [];
  private echoes: boolean[] = [];
  private count = 0;

  apply(snap: ScreenSnapshot): ScreenSnapshot {
    const rows = snap.rows;
    if (rows !== this.rows) {
      const same = rows.length === this.rows.length;
      if (!same) {
        this.echoes = new Array<boolean>(rows.length).fill(false);
        this.count = 0;
      }
      for (let y = 0; y < rows.length; y++) {
        if (same && rows[y] === this.rows[y]) continue;
        const echo = rows[y]!.includes('^[');
        if (echo === this.echoes[y]) continue;
        this.echoes[y] = echo;
        this.count += echo ? 1 : -1;
      }
      this.rows = rows;
    }
    return this.count === 0 ? snap : withoutReplyEchoes(snap);
  }
}

/** Offset `at` of a line that starts on row `top`: a cursor just past a full row stays on it, in its last column, as xterm keeps it. */
function placeOnLine(top: number, at: number, cols: number): { x: number; y: number } {
  const y = Math.floor(at / cols);
  return at > 0 && at % cols === 0 ? { x: cols - 1, y: top + y - 1 } : { x: at % cols, y: top + y };
}
