/**
 * Dialogs by their structure, when no rule names their text (agent CLIs
 * reword theirs every few weeks). Read from the visible rows only, at the
 * bottom of the screen's content: a menu with one choice marked as
 * selected (a cursor glyph, or a highlight: reverse video or a colour on
 * that row alone, read from the cells' attributes) and a hint (a footer or the question above it), a row of
 * buttons (`<Yes> <No>`, `< OK >`), a pager at `(END)`, a picker's prompt
 * with its match count. Pure; the watchdog adds the other conditions (a
 * stable structure for the settle time, an idle process tree).
 */
import { highlightOf, lastNonBlankRow, type ScreenSnapshot } from './screen-snapshot.js';

export type DialogKind = 'menu' | 'buttons' | 'pager' | 'picker';

export interface DialogMatch {
  readonly kind: DialogKind;
  /** The dialog's rows, trimmed: what a person is shown in the page, and what must stay still to settle. */
  readonly text: string;
}

/** How far above the last content a dialog may start: whiptail's and dialog's boxes fit easily. */
const REGION_ROWS = 24;
const BOX = /[│┃║┌┐└┘├┤┬┴┼╭╮╰╯═─━╔╗╚╝╟╢╠╣]/g;
const SELECTED = /^(\s*)[❯›▸▶→>●◉]\s+(\S.*)$/u;
const BUTTON = /<\s*(?:Yes|No|OK|Ok|Cancel|Exit|Back|Help|Select|Continue)\s*>/g;
const HINT = /(?:enter|return|⏎)\s+(?:to\s+)?(?:confirm|select|submit|choose|continue)|esc(?:ape)?\s+to\s+(?:cancel|exit|go back|close)|↑\s*\/?\s*↓|arrow keys|space to (?:select|toggle)|tab to (?:switch|cycle)/i;
const QUESTION = /[?？:]\s*(?:\([^)]*\))?\s*$/;
const MATCH_COUNT = /^\s*\d+\/\d+(?:\s|$)/;
const PICKER_PROMPT = /^\s*[>❯]\s/u;

/** A row's style by its index in the rows looked at (see ScreenSnapshot.styleOf). */
type StyleAt = (row: number) => string | null;

/** The rows a dialog may span, without frames, and those of them with text: each detector reads both. */
interface Region {
  readonly rows: readonly string[];
  readonly nonBlank: readonly string[];
  /** Index in `rows` of each of `nonBlank`. */
  readonly kept: readonly number[];
}

export function detectDialog(snap: ScreenSnapshot): DialogMatch | undefined {
  const last = lastNonBlankRow(snap.rows);
  if (last < 0) return undefined;
  const from = Math.max(0, last - REGION_ROWS + 1);
  // Every look at a screen comes here: plain loops, no array per row.
  const rows: string[] = [];
  const nonBlank: string[] = [];
  const kept: number[] = [];
  for (let y = from; y <= last; y++) {
    const r = unframed(snap.rows[y]!);
    if (!isBlank(r)) {
      nonBlank.push(r);
      kept.push(rows.length);
    }
    rows.push(r);
  }
  const region = { rows, nonBlank, kept };
  const styleOf = snap.styleOf;
  const styleAt = styleOf ? (i: number) => styleOf(from + i) : undefined;
  return pager(rows) ?? buttons(region) ?? picker(region) ?? menu(region, styleAt);
}

const unframed = (r: string) => (BOX_CHAR.test(r) ? r.replace(BOX, ' ').trimEnd() : r.trimEnd());
const BOX_CHAR = new RegExp(BOX.source);
const isBlank = (r: string) => !/\S/.test(r);
const content = (rows: readonly string[]) => rows.filter((r) => !isBlank(r));
const dialogText = (nonBlank: readonly string[]) => nonBlank.map((r) => r.trim()).join('\n');

/** `less` and friends waiting for a key: the last row is `(END)` (after the file's name, as less shows it), a lone `:`, or `--More--`. */
const PAGER_PROMPT = /^(?:(?:\S.*\s)?\(END\)|:|--More--(?:\(\d+%\))?)$/;

function pager(rows: readonly string[]): DialogMatch | undefined {
  const tail = rows.at(-1)!.trim();
  if (!PAGER_PROMPT.test(tail)) return undefined;
  return { kind: 'pager', text: dialogText(content(rows.slice(-6))) };
}

/** A button row near the bottom of the content (whiptail, dialog, newt): two buttons, or one `< OK >` alone. */
function buttons({ nonBlank }: Region): DialogMatch | undefined {
  for (let i = nonBlank.length - 1; i >= Math.max(0, nonBlank.length - 3); i--) {
    const row = nonBlank[i]!;
    const found = row.match(BUTTON) ?? [];
    // A row of buttons and nothing else: prose that mentions <Yes> and <No> is not one.
    const onlyButtons = row.replace(BUTTON, '').trim() === '';
    if (onlyButtons && (found.length >= 2 || (found.length === 1 && /O[Kk]/.test(found[0]!)))) return { kind: 'buttons', text: dialogText(nonBlank) };
  }
  return undefined;
}

/** fzf-like pickers: a prompt line and a match count next to each other, at the top or the bottom of the content. */
function picker({ nonBlank }: Region): DialogMatch | undefined {
  const ends = [0, 1, nonBlank.length - 2, nonBlank.length - 1].filter((i) => i >= 0 && i < nonBlank.length);
  const count = ends.find((i) => MATCH_COUNT.test(nonBlank[i]!));
  if (count === undefined) return undefined;
  const prompt = [count - 1, count + 1].some((i) => i >= 0 && i < nonBlank.length && PICKER_PROMPT.test(nonBlank[i]!));
  return prompt ? { kind: 'picker', text: dialogText(nonBlank) } : undefined;
}

/**
 * A choice group at the very bottom of the content (or just above a hint
 * footer, which may have a status line or two under it): two or more rows at one text column, exactly one marked, and a
 * hint — a key-hint footer, or a question right above the group. A list in
 * an agent's prose has no mark, or has the agent's input box under it.
 */
function menu({ nonBlank, kept }: Region, styleAt: StyleAt | undefined): DialogMatch | undefined {
  const rowStyles = styleAt ? (i: number) => styleAt(kept[i]!) : undefined;
  const footerAt = hintFooter(nonBlank);
  const footer = footerAt !== undefined;
  const end = (footerAt ?? nonBlank.length) - 1;
  const group = choiceGroup(nonBlank, end);
  if (!group) return undefined;
  const above = nonBlank[group.start - 1] ?? '';
  // A glyph needs a question or a hint; a highlighted choice under a title is a framed menu
  // (dialog --menu without buttons). Styles are read last, and only for a group that could be one.
  if (group.marked === 1) {
    const hinted = footer || HINT.test(above) || QUESTION.test(above.trim());
    return hinted ? menuMatch(nonBlank, group.start, footerAt) : undefined;
  }
  if (group.marked !== 0 || !rowStyles || (!footer && above.trim() === '')) return undefined;
  const styles: (string | null)[] = [];
  for (let i = group.start; i <= end; i++) styles.push(rowStyles(i));
  return oneStandsOut(styles) ? menuMatch(nonBlank, group.start, footerAt) : undefined;
}

/** Rows a menu may show under its hint footer: a status line, a timer, a spinner, a blinking marker. */
const UNDER_FOOTER = 2;

/** The hint footer's index among the last rows; a marked row under it would be a choice, so no footer. */
function hintFooter(rows: readonly string[]): number | undefined {
  for (let i = rows.length - 1; i >= Math.max(0, rows.length - 1 - UNDER_FOOTER); i--) {
    if (SELECTED.test(rows[i]!)) return undefined;
    if (HINT.test(rows[i]!)) return i;
  }
  return undefined;
}

/** The menu from the row above its choices down to its footer: what lies under the footer is not asked, and may move. */
const menuMatch = (rows: readonly string[], start: number, footerAt: number | undefined): DialogMatch => ({
  kind: 'menu',
  text: rows.slice(Math.max(0, start - 1), footerAt === undefined ? undefined : footerAt + 1).map((r) => r.trim()).join('\n'),
});

/** Rows ending at `end` whose text starts at one column, and how many of them a glyph marks. */
function choiceGroup(rows: readonly string[], end: number): { start: number; marked: number } | undefined {
  const column = (r: string) => {
    const m = SELECTED.exec(r);
    return m ? { col: r.length - m[2]!.length, marked: true } : { col: r.length - r.trimStart().length, marked: false };
  };
  const want = rows[end] === undefined ? undefined : column(rows[end]!).col;
  if (want === undefined) return undefined;
  let start = end;
  let marked = 0;
  for (let i = end; i >= 0; i--) {
    const c = column(rows[i]!);
    if (c.col !== want || rows[i]!.trim() === '') break;
    if (c.marked) marked++;
    start = i;
  }
  return end - start + 1 < 2 ? undefined : { start, marked };
}

/**
 * Exactly one row highlighted (reverse video or a background of its own)
 * unlike all the others, which share one: `dialog --menu`'s selection. A
 * colour of the text alone is not enough (`ls --color` marks directories
 * so), nor are two highlights in turn (zebra rows).
 */
function oneStandsOut(styles: readonly (string | null)[]): boolean {
  const counts = new Map<string, number>();
  for (const s of styles) counts.set(highlightOf(s), (counts.get(highlightOf(s)) ?? 0) + 1);
  if (counts.size !== 2) return false;
  const [a, b] = [...counts.values()];
  return Math.min(a!, b!) === 1;
}

/** What must stay still for a dialog to settle: its kind and rows (the cells seen blinking are left out by blinks.ts). */
export function dialogKey(d: DialogMatch): string {
  return `${d.kind}\n${d.text}`;
}
