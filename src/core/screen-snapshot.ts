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
}

/** Index of the last row holding any non-blank text, or -1 on a blank screen. */
export function lastNonBlankRow(rows: readonly string[]): number {
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i]!.trim() !== '') return i;
  }
  return -1;
}

/** FNV-1a over the rows: cheap, stable, good enough to notice a change. */
export function fingerprintRows(rows: readonly string[]): string {
  let h = 0x811c9dc5;
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      h ^= row.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x0a;
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
