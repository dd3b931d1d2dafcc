import { fingerprintRows, lastNonBlankRow, type ScreenSnapshot } from '../../src/core/screen-snapshot.js';

/**
 * A snapshot from plain text, the way src/screen would produce it: rows
 * padded to `height`, trailing spaces trimmed. The cursor defaults to the end
 * of the last non-blank row (a classic line prompt).
 */
export function snapshotOf(text: string, o: { height?: number; cursor?: { x: number; y: number } | 'below' } = {}): ScreenSnapshot {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const height = Math.max(o.height ?? 24, lines.length);
  const rows = [...lines, ...Array(height - lines.length).fill('')];
  const last = Math.max(0, lastNonBlankRow(rows));
  const cursor =
    o.cursor === 'below' ? { x: 0, y: Math.min(height - 1, last + 1) } : (o.cursor ?? { x: rows[last]!.length + 1, y: last });
  return { rows, cols: 120, cursor, alternate: false, fingerprint: fingerprintRows(rows) };
}
