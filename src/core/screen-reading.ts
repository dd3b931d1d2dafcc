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
import type { ScreenSnapshot } from './screen-snapshot.js';

/** Enough for every frame of a few spinners and dialogs at once; each entry shares its rows with a snapshot. */
const CAPACITY = 256;

interface Reading {
  readonly rows: readonly string[];
  /** By rule list: the prompts while the screen moves, the questions once it is quiet. */
  readonly prompts: Map<readonly PromptRule[], PromptMatch | undefined>;
  dialog?: { readonly match: DialogMatch | undefined };
}

export class ScreenReadings {
  private readonly readings = new Map<string, Reading>();
  private last: { snap: ScreenSnapshot; reading: Reading } | undefined;

  /** The riskiest prompt rule matching the bottom of the screen (matchPrompt). */
  prompt(snap: ScreenSnapshot, rules: readonly PromptRule[]): PromptMatch | undefined {
    const r = this.reading(snap);
    if (r.prompts.has(rules)) return r.prompts.get(rules);
    const match = matchPrompt(snap, rules);
    // A rule reload brings new lists: the old ones' readings go.
    if (r.prompts.size >= 2) r.prompts.clear();
    r.prompts.set(rules, match);
    return match;
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
    if (this.last?.snap === snap) return this.last.reading;
    const key = `${snap.fingerprint}:${snap.cursor.x}:${snap.cursor.y}`;
    let r = this.readings.get(key);
    if (r && !sameRows(r.rows, snap.rows)) r = undefined;
    if (r) this.readings.delete(key);
    else r = { rows: snap.rows, prompts: new Map() };
    // Re-inserted last: the Map's order is the least recently read first.
    this.readings.set(key, r);
    if (this.readings.size > CAPACITY) this.readings.delete(this.readings.keys().next().value!);
    this.last = { snap, reading: r };
    return r;
  }
}

function sameRows(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
