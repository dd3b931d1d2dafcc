/**
 * What the screen asks, as the watchdog tracks it between looks: the prompt
 * a rule names (the candidate) and the dialog no rule names, each with the
 * time its text or structure last changed, which is what settling counts from.
 */
import { Blinks } from './blinks.js';
import { dialogKey, type DialogMatch } from './dialog-structure.js';
import type { PromptMatch, PromptRule } from './prompt-match.js';
import { ScreenReadings } from './screen-reading.js';
import type { ScreenSnapshot } from './screen-snapshot.js';
import type { Episode } from './verdicts.js';
import { EARLY_SETTLE_MS, KNOWN_DIALOG_SETTLE_MS } from './watchdog-types.js';

export interface Candidate {
  readonly key: string;
  readonly match: PromptMatch;
  readonly since: number;
}

export interface DialogCandidate {
  readonly key: string;
  readonly match: DialogMatch;
  readonly since: number;
}

export class ScreenAsks {
  /** Prompts and dialogs read off screens seen before: spinner frames come round again and again. */
  private readonly readings = new ScreenReadings();
  candidate: Candidate | undefined;
  /** The dialog's cells that blink, found by watching it. */
  private readonly blinks = new Blinks();
  /** A dialog no rule names (dialog-structure.ts), since its structure last changed (blinking cells aside). */
  dialog: DialogCandidate | undefined;
  /** A watch mode's footer (the rules' `parked:`), since its text last changed. */
  parked: Candidate | undefined;
  /** The foreground program sits in a terminal read (the tty-read signal). */
  readingTty = false;

  /** The riskiest prompt `rules` name on `snap`; a new one (rule or text) starts settling now. */
  prompt(snap: ScreenSnapshot, rules: readonly PromptRule[], now: number): PromptMatch | undefined {
    const m = this.readings.prompt(snap, rules);
    const key = m ? `${m.rule.id}\n${m.text}` : undefined;
    if (key !== this.candidate?.key) this.candidate = m && key ? { key, match: m, since: now } : undefined;
    return m;
  }

  /** The dialog on `snap` (none without a screen); a new structure starts settling now, a blink found late from when it began. */
  seeDialog(snap: ScreenSnapshot | undefined, now: number): void {
    const d = snap ? this.readings.dialog(snap) : undefined;
    // Another kind of dialog is another dialog: what blinked in the last one says nothing of it.
    if (!d || d.kind !== this.dialog?.match.kind) this.blinks.clear();
    if (!d) {
      this.dialog = undefined;
      return;
    }
    const seen = this.blinks.see(dialogKey(d), now);
    if (seen.key !== this.dialog?.key) this.dialog = { key: seen.key, match: d, since: seen.since };
  }

  /** The watch mode on `snap` (none without a screen or rules); a new one starts its still time now. */
  seeParked(snap: ScreenSnapshot | undefined, rules: readonly PromptRule[] | undefined, now: number): void {
    const m = snap && rules?.length ? this.readings.prompt(snap, rules) : undefined;
    const key = m ? `parked:${m.rule.id}\n${m.text}` : undefined;
    if (key !== this.parked?.key) this.parked = m && key ? { key, match: m, since: now } : undefined;
  }

  /** A question the quiet screen ends with (the rules' question list), without making it a candidate. */
  question(snap: ScreenSnapshot | undefined, rules: readonly PromptRule[]): PromptMatch | undefined {
    return snap ? this.readings.prompt(snap, rules) : undefined;
  }

  /**
   * The first screen of a resumed block: the prompt (or dialog) it names, if
   * it is still there, is the block's own, settled since the block began.
   * If it is gone, the next evaluate ends the block as any cleared prompt.
   */
  claim(e: Episode, m: PromptMatch | undefined, snap: ScreenSnapshot, rule: string | undefined): void {
    e.resuming = false;
    if (e.code === 'prompt' && m && this.candidate && m.rule.id === rule) {
      e.key = this.candidate.key;
      this.candidate = { ...this.candidate, since: e.since };
    }
    const d = e.code === 'unknown-dialog' && !m ? this.readings.dialog(snap) : undefined;
    if (d) {
      e.key = this.blinks.see(dialogKey(d), e.since).key;
      this.dialog = { key: e.key, match: d, since: e.since };
    }
  }

  /**
   * A line prompt (cursor on its line) whose program sits in a terminal read
   * settles early; a dialog a rule names settles in KNOWN_DIALOG_SETTLE_MS;
   * any other keeps the settle time. Never longer than the configured settle.
   */
  settleFor(c: Candidate, settleMs: number): number {
    const linePrompt = (c.match.rule.cursor ?? 'same-line') === 'same-line';
    if (linePrompt) return this.readingTty ? Math.min(EARLY_SETTLE_MS, settleMs) : settleMs;
    return Math.min(KNOWN_DIALOG_SETTLE_MS, settleMs);
  }
}
