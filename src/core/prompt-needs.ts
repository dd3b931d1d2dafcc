/**
 * Which rules of a list could match a screen at all, from the texts each
 * needs (PromptRule.needs, found in its pattern when rules are compiled).
 * A spinner or a progress line makes a new screen at every look, and
 * running two dozen regexes over the whole screen was most of what a look
 * cost; but only a row or two changed since the last look, and the other
 * rows are the very same strings (screen/screen.ts keeps the rows it did not
 * read again), so the texts each row holds are carried from look to look
 * and only the changed rows are read. Output that scrolled on changes every
 * row: then the rules are left to run, as they would without this.
 */

/** Texts one of which every match of a rule's pattern contains (rules/needed-text.ts). */
export interface NeededText {
  readonly texts: readonly string[];
  /** How the pattern compares text: exactly, or case-folded as a regex with these flags does. */
  readonly fold: '' | 'i' | 'iu';
}

/** A rule as the scan sees it (PromptRule). */
export interface Needing {
  /** Absent: no text is known, the rule is run at every look. */
  readonly needs?: NeededText | undefined;
}

/** More changed rows than this at one look (output scrolled on) and the screen is left to the rules. */
const MANY_CHANGED_ROWS = 4;

interface Piece {
  readonly text: string;
  /** The folded comparison, the rule's own way: a regex with its case flags. */
  readonly folded: RegExp | undefined;
}

/** A rule list's texts, cut at line ends (rows hold none): made once per list, shared by every screen. */
export class NeedsScan {
  private readonly pieces: Piece[] = [];
  /** By rule: its texts, each as the pieces it needs all of; undefined: run at every look. */
  private readonly byRule: ReadonlyArray<ReadonlyArray<readonly number[]> | undefined>;
  /** Any exact piece, longest first: one pass over a row finds where one starts, not which. */
  private readonly anyExact: RegExp | undefined;
  private readonly exact: number[] = [];
  private readonly folded: number[] = [];

  constructor(rules: readonly Needing[]) {
    const index = new Map<string, number>();
    const pieceOf = (text: string, fold: NeededText['fold']): number => {
      const key = `${fold}\u0000${text}`;
      let k = index.get(key);
      if (k === undefined) {
        index.set(key, (k = this.pieces.length));
        this.pieces.push({ text, folded: fold === '' ? undefined : new RegExp(escape(text), fold) });
      }
      return k;
    };
    this.byRule = rules.map(({ needs }) =>
      needs && needs.texts.length > 0 ? needs.texts.map((t) => t.split('\n').filter((p) => p !== '').map((p) => pieceOf(p, needs.fold))) : undefined,
    );
    this.pieces.forEach((p, k) => (p.folded ? this.folded : this.exact).push(k));
    this.exact.sort((a, b) => this.pieces[b]!.text.length - this.pieces[a]!.text.length);
    this.anyExact = this.exact.length > 0 ? new RegExp(this.exact.map((k) => escape(this.pieces[k]!.text)).join('|'), 'g') : undefined;
  }

  get size(): number {
    return this.pieces.length;
  }

  /** By rule: whether the pieces `found` make up one of its texts, or it needs none. */
  rulesWith(found: Uint8Array): boolean[] {
    return this.byRule.map((texts) => texts === undefined || texts.some((pieces) => pieces.every((k) => found[k] === 1)));
  }

  /** The pieces in one row. */
  piecesIn(row: string): number[] {
    const found = new Set<number>();
    const any = this.anyExact;
    if (any) {
      any.lastIndex = 0;
      for (let m = any.exec(row); m; m = any.exec(row)) {
        // Pieces may overlap or share a start: each one starting here is checked, and the pass goes on from the next character.
        for (const k of this.exact) if (row.startsWith(this.pieces[k]!.text, m.index)) found.add(k);
        any.lastIndex = m.index + 1;
      }
    }
    for (const k of this.folded) if (this.pieces[k]!.folded!.test(row)) found.add(k);
    return [...found];
  }
}

const scans = new WeakMap<readonly Needing[], NeedsScan>();

/** The scan of a rule list, made once per list (a reload brings new lists). */
export function needsScanOf(rules: readonly Needing[]): NeedsScan {
  let scan = scans.get(rules);
  if (!scan) scans.set(rules, (scan = new NeedsScan(rules)));
  return scan;
}

/**
 * One screen's rows as they change, for one rule list: the pieces each row
 * held when it was last read. One per job and list (ScreenReadings keeps
 * them): two jobs' screens in turn would never share a row.
 */
export class RowNeeds {
  private rows: readonly string[] = [];
  private pieces: ReadonlyArray<readonly number[] | undefined> = [];

  constructor(private readonly scan: NeedsScan) {}

  /**
   * By rule (in the list's order): whether rows 0..last hold a text it
   * needs, or it needs none; undefined when more than a few rows changed
   * since the last look: every rule is run then. A few rows are read at
   * each such look, so a screen that then stays still is known soon.
   */
  possible(rows: readonly string[], last: number): boolean[] | undefined {
    const found = new Uint8Array(this.scan.size);
    const pieces: Array<readonly number[] | undefined> = new Array(last + 1);
    let budget = MANY_CHANGED_ROWS;
    let complete = true;
    for (let y = 0; y <= last; y++) {
      const row = rows[y]!;
      let ks = row === this.rows[y] ? this.pieces[y] : undefined;
      if (ks === undefined && budget > 0) {
        budget--;
        ks = this.scan.piecesIn(row);
      }
      pieces[y] = ks;
      if (ks === undefined) complete = false;
      else for (const k of ks) found[k] = 1;
    }
    this.rows = rows;
    this.pieces = pieces;
    return complete ? this.scan.rulesWith(found) : undefined;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
