/**
 * What the watchdog reads off a screen (the riskiest prompt, a dialog's
 * structure), remembered for screens it has read before. A spinner, a
 * blinking glyph or a progress line cycles through a handful of screens, and
 * the watchdog looks at every one every 100 ms: a drill of the shipped
 * scenarios showed 140k screen samples of about 7k distinct screens, with
 * the prompt regexes and the dialog checks most of their cost.
 *
 * Pure and exact: a reading is reused only for the same rows (compared
 * whole, not by their hash) with the cursor in the same place, under the same
 * rules. A dialog read with the help of row styles (a highlight-only menu) is
 * read again: styles are not part of the rows.
 */
import { detectDialog, type DialogMatch } from './dialog-structure.js';
import { matchPrompt, type PromptMatch, type PromptRule } from './prompt-match.js';
import { needsScanOf, RowNeeds } from './prompt-needs.js';
import type { ScreenSnapshot } from './screen-snapshot.js';

/**
 * How much is remembered. Spinner frames differ from each other in a row or
 * two, and a reading shares its rows with the snapshot before it: it costs
 * what it does not share (COST_PER_READING plus the characters of its rows
 * unlike the last reading's). Up to MAX_READINGS readings, within
 * BUDGET_CHARS: a job whose screen scrolls on (where nothing comes round
 * again) keeps about forty screens, a few hundred KB at most, while one
 * cycling through an agent's spinner keeps hundreds. The drill of the
 * quiet-gaps cast took 2.5 s with 256 readings and 6.5 s with 64.
 */
const MAX_READINGS = 512;
const BUDGET_CHARS = 128_000;
const COST_PER_READING = 64;

interface Reading {
  readonly rows: readonly string[];
  readonly x: number;
  readonly y: number;
  readonly fingerprint: string;
  readonly cost: number;
  /** By rule list: the prompts and the watch modes while the screen moves, the questions once it is quiet. */
  readonly prompts: Map<readonly PromptRule[], PromptMatch | undefined>;
  dialog?: { readonly match: DialogMatch | undefined };
}

export class ScreenReadings {
  /** By fingerprint: screens with one fingerprint (the cursor elsewhere, or a collision) share a list. */
  private readonly readings = new Map<string, Reading[]>();
  /** Every reading kept, the least recently read first. */
  private readonly recent = new Set<Reading>();
  private lastSnap: ScreenSnapshot | undefined;
  private lastReading: Reading | undefined;
  private cost = 0;
  /** By rule list: the rules' texts on this screen's rows, carried from look to look. */
  private readonly rowNeeds = new Map<readonly PromptRule[], RowNeeds>();

  /** The riskiest prompt rule matching the bottom of the screen (matchPrompt). */
  prompt(snap: ScreenSnapshot, rules: readonly PromptRule[]): PromptMatch | undefined {
    const r = this.reading(snap);
    if (r.prompts.has(rules)) return r.prompts.get(rules);
    const match = matchPrompt(snap, rules, this.rowsFor(rules));
    // A rule reload brings new lists: the old ones' readings go.
    if (r.prompts.size >= 3) r.prompts.clear();
    r.prompts.set(rules, match);
    return match;
  }

  private rowsFor(rules: readonly PromptRule[]): RowNeeds {
    let rows = this.rowNeeds.get(rules);
    if (!rows) {
      // A reload brings new lists (three are in use: prompts, questions, watch modes).
      if (this.rowNeeds.size >= 3) this.rowNeeds.clear();
      this.rowNeeds.set(rules, (rows = new RowNeeds(needsScanOf(rules))));
    }
    return rows;
  }

  /** A dialog by its structure (detectDialog). */
  dialog(snap: ScreenSnapshot): DialogMatch | undefined {
    const r = this.reading(snap);
    if (r.dialog) return r.dialog.match;
    let styled = false;
    const styleOf = snap.styleOf;
    const probe: ScreenSnapshot = styleOf ? { ...snap, styleOf: (row) => ((styled = true), styleOf(row)) } : snap;
    const match = detectDialog(probe);
    if (!styled) r.dialog = { match };
    return match;
  }

  private reading(snap: ScreenSnapshot): Reading {
    if (this.lastSnap === snap) return this.lastReading!;
    const { x, y } = snap.cursor;
    const list = this.readings.get(snap.fingerprint);
    let r: Reading | undefined;
    for (let i = 0; list && i < list.length && !r; i++) {
      const o = list[i]!;
      if (o.x === x && o.y === y && sameRows(o.rows, snap.rows)) r = o;
    }
    if (!r) {
      r = this.fresh(snap);
      if (list) list.push(r);
      else this.readings.set(snap.fingerprint, [r]);
    }
    // Re-inserted last: the set's order is the least recently read first.
    this.recent.delete(r);
    this.recent.add(r);
    if (this.recent.size > MAX_READINGS || this.cost > BUDGET_CHARS) this.evict();
    this.lastSnap = snap;
    this.lastReading = r;
    return r;
  }

  /** The least recently read go first, until within bounds. */
  private evict(): void {
    for (const old of this.recent) {
      if (this.recent.size <= MAX_READINGS && this.cost <= BUDGET_CHARS) break;
      this.recent.delete(old);
      this.cost -= old.cost;
      const fingerprint = old.fingerprint;
      const list = this.readings.get(fingerprint)!;
      list.splice(list.indexOf(old), 1);
      if (list.length === 0) this.readings.delete(fingerprint);
    }
  }

  private fresh(snap: ScreenSnapshot): Reading {
    const before = this.lastReading?.rows ?? [];
    let cost = COST_PER_READING;
    for (let y = 0; y < snap.rows.length; y++) if (snap.rows[y] !== before[y]) cost += snap.rows[y]!.length;
    this.cost += cost;
    return { rows: snap.rows, x: snap.cursor.x, y: snap.cursor.y, fingerprint: snap.fingerprint, cost, prompts: new Map() };
  }
}

function sameRows(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
