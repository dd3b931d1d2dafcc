/**
 * Blinking by observation: a cell of a dialog that comes back to a state it
 * showed a few frames before (a bullet on and off, a spinner's frames, a
 * marker that flashes) is animation, whatever glyph it uses. Such cells are
 * left out of what must stay still; a cell that changes and never comes back
 * is a change. Pure: the caller hands each distinct text with its time.
 */

/** Frames remembered: a ten-frame spinner comes round twice. */
const MAX_FRAMES = 24;
/** A cell cycling through more states than this is a counter, not a blink. */
const MAX_STATES = 12;

interface Frame {
  readonly text: string;
  readonly cells: readonly (readonly string[])[];
  readonly at: number;
}

export interface Seen {
  /** The text with its blinking cells blanked. */
  readonly key: string;
  /** Since when the text has looked so: a blink found late dates back to the frames that showed it. */
  readonly since: number;
}

export class Blinks {
  private frames: Frame[] = [];
  private last: Seen | undefined;

  /** `text` on screen at `at`: its key without blinking cells, and since when that key stands. */
  see(text: string, at: number): Seen {
    if (this.last && this.frames.at(-1)?.text === text) return this.last;
    this.frames.push({ text, cells: text.split('\n').map((r) => Array.from(r)), at });
    if (this.frames.length > MAX_FRAMES) this.frames.shift();
    const blinking = this.blinkingCells();
    const keys = this.frames.map((f) => mask(f.cells, blinking));
    const key = keys.at(-1)!;
    let i = keys.length - 1;
    while (i > 0 && keys[i - 1] === key) i--;
    this.last = { key, since: this.frames[i]!.at };
    return this.last;
  }

  /** The dialog left the screen: the next one starts from nothing. */
  clear(): void {
    this.frames = [];
    this.last = undefined;
  }

  /** Every cell (`cellAt`) that came back to an earlier state of its own. */
  private blinkingCells(): Set<number> {
    const out = new Set<number>();
    const rows = Math.max(...this.frames.map((f) => f.cells.length));
    for (let r = 0; r < rows; r++) {
      const cols = Math.max(...this.frames.map((f) => f.cells[r]?.length ?? 0));
      for (let c = 0; c < cols; c++) if (cameBack(this.frames.map((f) => f.cells[r]?.[c] ?? ''))) out.add(cellAt(r, c));
    }
    return out;
  }
}

/** A value shown again after another one, among a few states. */
function cameBack(values: readonly string[]): boolean {
  const seen = new Set<string>();
  let prev: string | undefined;
  let returned = false;
  for (const v of values) {
    if (v === prev) continue;
    if (seen.has(v)) returned = true;
    seen.add(v);
    prev = v;
  }
  return returned && seen.size <= MAX_STATES;
}

/** A cell's number: rows are far narrower than this. */
const cellAt = (row: number, col: number) => row * 65_536 + col;

function mask(cells: readonly (readonly string[])[], blinking: ReadonlySet<number>): string {
  if (blinking.size === 0) return cells.map((row) => row.join('')).join('\n');
  return cells.map((row, r) => row.map((ch, c) => (blinking.has(cellAt(r, c)) ? ' ' : ch)).join('')).join('\n');
}
