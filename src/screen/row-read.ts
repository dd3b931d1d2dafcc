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
  // Cells come in runs of one style: a key is built per run, not per cell.
  let run = 0;
  let inv = 0;
  let bgMode = 0;
  let bg = 0;
  let fgMode = 0;
  let fg = 0;
  const flush = () => {
    if (run === 0) return;
    const key = styleKey(inv !== 0, bgMode, bg, fgMode, fg);
    counts.set(key, (counts.get(key) ?? 0) + run);
  };
  for (let x = 0; x < cols; x++) {
    line.getCell(x, cell);
    const code = cell.getCode();
    if (code === 0 || code === 0x20 || isFrame(code)) continue;
    const i = cell.isInverse();
    const bm = cell.getBgColorMode();
    const b = cell.getBgColor();
    const fm = cell.getFgColorMode();
    const f = cell.getFgColor();
    if (run > 0 && i === inv && bm === bgMode && b === bg && fm === fgMode && f === fg) {
      run++;
      continue;
    }
    flush();
    [run, inv, bgMode, bg, fgMode, fg] = [1, i, bm, b, fm, f];
  }
  flush();
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
