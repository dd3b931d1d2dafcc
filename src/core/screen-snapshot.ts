/**
 * What the watchdog sees of a terminal: the visible rows only (never
 * scrollback), where the cursor is, and a cheap fingerprint to tell change.
 * Produced by src/screen (live and drill alike); consumed by the pure core.
 */
export interface ScreenSnapshot {
  /** Visible rows as plain text, trailing spaces trimmed, top to bottom. */
  readonly rows: readonly string[];
  readonly cols: number;
  /** Cursor position in the viewport, 0-based. */
  readonly cursor: { readonly x: number; readonly y: number };
  /** True while the alternate screen buffer is active. */
  readonly alternate: boolean;
  /** Hash of the visible rows; equal rows give equal fingerprints. */
  readonly fingerprint: string;
  /**
   * The style most of a row's text is drawn in (reverse video, colours), or
   * null for a blank row: a menu whose selection is shown only by a
   * highlight has one row styled unlike its siblings. Absent when the
   * snapshot was made from text alone. A function, not a list: reading a
   * row's cells costs more than its text, and only a dialog check that found
   * no glyph asks (a drill's screen samples went 3x faster for it). Read it
   * while handling the snapshot: once the terminal moved on it answers null.
   */
  readonly styleOf?: (row: number) => string | null;
}

/** Index of the last row holding any non-blank text, or -1 on a blank screen. */
export function lastNonBlankRow(rows: readonly string[]): number {
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i]!.trim() !== '') return i;
  }
  return -1;
}

/** FNV-1a of one row. */
export function rowHash(row: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < row.length; i++) {
    h ^= row.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The rows' own hashes folded together, a word at a time (FNV-1a's step
 * with a shift to mix the high bits down): cheap, stable, order-sensitive,
 * good enough to notice a change. Hashing each row on its own lets a screen
 * that redrew one row (a progress line, a spinner) hash only that row again:
 * `hashes` are the rows' rowHash values when the caller kept them.
 */
export function fingerprintRows(rows: readonly string[], hashes?: readonly number[]): string {
  let h = FOLD_START;
  for (let y = 0; y < rows.length; y++) h = foldRow(h, hashes?.[y] ?? rowHash(rows[y]!));
  return fingerprintOf(h);
}

/** fingerprintRows's fold before any row. */
export const FOLD_START = 0x811c9dc5;

/**
 * One row's hash folded in: a caller that keeps the fold after each row
 * (the screen does) folds again only from the first row that changed.
 */
export function foldRow(h: number, hash: number): number {
  const m = Math.imul(h ^ hash, 0x01000193);
  return m ^ (m >>> 15);
}

/** The fingerprint of a fold over every row. */
export function fingerprintOf(h: number): string {
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** A row style as rowStyle (src/screen) writes it: reverse video, background, foreground. */
export function styleKey(inverse: boolean, bgMode: number, bg: number, fgMode: number, fg: number): string {
  return `${inverse ? 'inv' : ''}/${bgMode}:${bg}/${fgMode}:${fg}`;
}

/** The highlight part of a style key (reverse video and background), without the text colour. */
export function highlightOf(style: string | null): string {
  if (!style) return '';
  const second = style.indexOf('/', style.indexOf('/') + 1);
  return second < 0 ? style : style.slice(0, second);
}

/** The bottom of the screen's content (up to n rows), for a page when no rule cut the prompt out. */
export function bottomText(rows: readonly string[], n = 12): string | undefined {
  const last = lastNonBlankRow(rows);
  const text = rows.slice(Math.max(0, last - n + 1), last + 1).map((r) => r.trimEnd()).join('\n').trim();
  return text || undefined;
}
