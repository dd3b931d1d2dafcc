/**
 * Trailing-prompt matching over the visible screen. Pure: rules arrive
 * compiled, the screen arrives as a snapshot.
 *
 * A prompt only counts when it sits at the bottom of the content and the
 * cursor is with it: a prompt-looking line that scrolled on, or that a
 * program echoed followed by a newline, is not waiting for anyone.
 */
import type { PromptClass } from './task-state.js';
import type { NeededText, RowNeeds } from './prompt-needs.js';
import { lastNonBlankRow, type ScreenSnapshot } from './screen-snapshot.js';

/** Where the cursor must be, relative to the last non-blank row L. */
export type CursorRule =
  /** on row L, at or right of its text: classic line prompts (`[y/N] `). */
  | 'same-line'
  /** within NEAR_ROWS rows of L: TUI dialogs that park the cursor under the frame. */
  | 'near'
  /** anywhere: full-screen dialogs that hide the cursor. Use sparingly. */
  | 'any';

export const NEAR_ROWS = 3;

export interface PromptRule {
  readonly id: string;
  readonly class: PromptClass;
  readonly match: RegExp;
  readonly cursor: CursorRule;
  /** How many rows, ending at the last non-blank row, the pattern sees. */
  readonly lines: number;
  /**
   * Texts one of which every match of `match` contains (rules/needed-text.ts,
   * when the rule is compiled): a screen without any is not matched against
   * it. Absent: matched at every look.
   */
  readonly needs?: NeededText;
  /** Keys a person or the responder would send to accept (key names). */
  readonly answer: readonly string[];
  /** Keys that decline, when the prompt has a safe "no". */
  readonly decline: readonly string[];
  /** Foreground programs expected to own this prompt (anti-spoofing, later). */
  readonly programs: readonly string[];
  /** A catch-all (`[y/N]`, `Press Enter`): considered only when no specific rule matches. */
  readonly generic: boolean;
  /** How the responder reads the prompt's content; absent for rules with nothing to read. */
  readonly extract?: PromptExtract;
  readonly description?: string;
  /** Agent versions the rule was checked against; empty for rules that name none. */
  readonly checked?: readonly AgentVersion[];
  readonly source: { readonly file: string; readonly line: number };
}

/** `claude-code 2.1.112` from a rule's `checked:` list. */
export interface AgentVersion {
  readonly agent: string;
  readonly version: string;
}

export type Ecosystem = 'npm' | 'pip' | 'apt' | 'cargo' | 'gem' | 'go';

export interface PromptExtract {
  readonly packages?: { readonly ecosystem: Ecosystem; readonly after: RegExp; readonly item: RegExp };
  /** Each has a named group `cmd`. */
  readonly command: readonly RegExp[];
}

/** A risk verb or pattern (rules/risk.yaml): a hit makes a prompt destructive. */
export interface RiskPattern {
  readonly id: string;
  readonly match: RegExp;
  readonly description?: string;
  readonly source: { readonly file: string; readonly line: number };
}

export interface PromptMatch {
  readonly rule: PromptRule;
  /** The rows the match touches, whole, joined by \n. */
  readonly text: string;
  /** Viewport rows the match covers, inclusive. */
  readonly top: number;
  readonly bottom: number;
}

/** Riskier classes win when two rules match one prompt. */
const RISK_ORDER: readonly PromptClass[] = ['destructive', 'secret', 'trust', 'outbound', 'permission', 'editor', 'pager', 'unknown', 'question', 'confirm', 'dependency'];

export function riskRank(c: PromptClass): number {
  return RISK_ORDER.indexOf(c);
}

export function cursorAllows(rule: CursorRule, snap: ScreenSnapshot, last: number): boolean {
  if (rule === 'any') return true;
  if (rule === 'near') return Math.abs(snap.cursor.y - last) <= NEAR_ROWS;
  const row = snap.rows[last] ?? '';
  return snap.cursor.y === last && snap.cursor.x >= row.trimEnd().length;
}

/** The rows a rule looks at: up to `lines` rows ending at the last non-blank row. */
export function tailWindow(rows: readonly string[], last: number, lines: number): { top: number; text: string } {
  return new Windows(rows, last).get(lines);
}

/**
 * Every window of one screen, cut from one join of the rows down to the
 * last non-blank one: a smaller window is the tail of a larger. Rules ask
 * for eleven sizes (1 to 60 rows), and joining each afresh was half the
 * cost of matching a screen that is new at every look (a progress line).
 */
class Windows {
  private text: string | undefined;
  /** Where each row starts in `text`. */
  private readonly starts: number[] = [];

  constructor(
    private readonly rows: readonly string[],
    private readonly last: number,
  ) {}

  /** Up to `lines` rows ending at the last non-blank row, and the row they start at. */
  get(lines: number): { top: number; text: string } {
    const top = Math.max(0, this.last - lines + 1);
    if (this.text === undefined) {
      this.text = this.rows.slice(0, this.last + 1).join('\n');
      for (let y = 0, at = 0; y <= this.last; at += this.rows[y]!.length + 1, y++) this.starts.push(at);
    }
    return { top, text: top === 0 ? this.text : this.text.slice(this.starts[top]) };
  }
}

function matchOne(rule: PromptRule, snap: ScreenSnapshot, last: number, windows: Windows): PromptMatch | undefined {
  if (!cursorAllows(rule.cursor, snap, last)) return undefined;
  const { top, text } = windows.get(rule.lines);
  rule.match.lastIndex = 0;
  const m = rule.match.exec(text);
  if (!m) return undefined;
  const first = top + countNewlines(text.slice(0, m.index));
  const bottom = first + countNewlines(m[0]);
  // Whole rows, not just the regex hit: `[y/N]` alone is no use to a person reading the page.
  return { rule, text: snap.rows.slice(first, bottom + 1).join('\n'), top: first, bottom };
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Every rule that matches the bottom of the screen: specific rules before
 * generic ones, each group riskiest first (ties keep file order). A generic
 * `[Y/n]` rule must not outrank the apt rule that knows what the question is,
 * but two specific rules disagreeing means the riskier one wins. `rows`:
 * the rule texts on this screen's rows as last read (prompt-needs.ts), so
 * rules with none of their texts on the screen are not run.
 */
export function matchPrompts(snap: ScreenSnapshot, rules: readonly PromptRule[], rows?: RowNeeds): PromptMatch[] {
  const last = lastNonBlankRow(snap.rows);
  if (last < 0) return [];
  const hits: PromptMatch[] = [];
  const windows = new Windows(snap.rows, last);
  // A window is rows up to `last`: a text on none of them is in no window.
  const possible = rows?.possible(snap.rows, last);
  for (let i = 0; i < rules.length; i++) {
    const hit = possible === undefined || possible[i] ? matchOne(rules[i]!, snap, last, windows) : undefined;
    if (hit) hits.push(hit);
  }
  const rank = (m: PromptMatch) => (m.rule.generic ? RISK_ORDER.length : 0) + riskRank(m.rule.class);
  return hits.sort((a, b) => rank(a) - rank(b));
}

/** The single match the watchdog acts on: the riskiest. */
export function matchPrompt(snap: ScreenSnapshot, rules: readonly PromptRule[], rows?: RowNeeds): PromptMatch | undefined {
  return matchPrompts(snap, rules, rows)[0];
}
