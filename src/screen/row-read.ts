/**
 * What a snapshot reads off one row of xterm's buffer beside its text: the
 * style its text is drawn in (a highlight-only menu's selection), and the
 * text without the spaces a program printed at its end.
 */
import type { IBufferCell, IBufferLine } from '@xterm/headless';
import { styleKey } from '../core/screen-snapshot.js';

/** Box-drawing and block characters (U+2500–U+259F): a dialog's frame, not its text. */
const isFrame = (code: number) => code >= 0x2500 && code <= 0x259f;

/**
 * The style most of a row's text cells share: reverse video, then
 * background and foreground colour (mode and value). Frames and blanks do
 * not count, so a highlighted choice inside a coloured box still stands out.
 */
export function rowStyle(line: IBufferLine, cols: number, cell: IBufferCell): string | null {
  const counts = new Map<string, number>();
  for (let x = 0; x < cols; x++) {
    line.getCell(x, cell);
    const code = cell.getCode();
    if (code === 0 || code === 0x20 || isFrame(code)) continue;
    const key = styleKey(cell.isInverse() !== 0, cell.getBgColorMode(), cell.getBgColor(), cell.getFgColorMode(), cell.getFgColor());
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best: string | null = null;
  let most = 0;
  for (const [key, n] of counts) if (n > most) [best, most] = [key, n];
  return best;
}

/**
 * translateToString(true) trims only cells never written; spaces a program
 * printed (padding, erase-by-overwrite) survive it, so they go here.
 */
export function trimSpaces(row: string): string {
  let end = row.length;
  while (end > 0 && row.charCodeAt(end - 1) === 0x20) end--;
  return end === row.length ? row : row.slice(0, end);
}
