/** Every case, in the order `npm run bench` runs them and the table lists them: the machine is quietest for the cheap ones first. */
export const CASES = ['cli', 'replay', 'latency', 'idle', 'flood', 'scale', 'fleet', 'web-stall', 'web'] as const;
export type CaseName = (typeof CASES)[number];

/** What every benchmark case returns: rows side by side with their anchors, measured in the same run. */
export interface Row {
  metric: string;
  /** nightshift's figure. */
  nightshift: number;
  /** The anchor's figure from the same run, or null when the row has no anchor. */
  anchor: number | null;
  anchorName: string | null;
  /** nightshift / anchor (null without an anchor). Whether higher or lower is better is in `goal`. */
  ratio: number | null;
  unit: string;
  /** The goal in words, e.g. "ratio ≥ 0.9" or "< 100 ms". */
  goal: string;
  /** Whether the goal is met; null when the row has no goal (context only). */
  pass: boolean | null;
}

export interface CaseResult {
  case: string;
  rows: Row[];
  details: unknown;
}

export interface CaseOptions {
  /** A short run that only shows the case works (small sizes, few trials); its figures mean little. */
  smoke: boolean;
  /** The nightshift checkout: bin/nightshift.js (which runs dist/), rules/, scenarios/. */
  root: string;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

export type BenchCase = (opts: CaseOptions) => Promise<CaseResult>;

/** A row; the ratio is nightshift / anchor when both are there. */
export function row(
  metric: string,
  nightshift: number,
  unit: string,
  o: { anchor?: number | null; anchorName?: string | null; goal?: string; pass?: boolean | null } = {},
): Row {
  const anchor = o.anchor ?? null;
  return {
    metric,
    nightshift,
    anchor,
    anchorName: anchor === null ? null : (o.anchorName ?? null),
    ratio: anchor === null || anchor === 0 ? null : nightshift / anchor,
    unit,
    goal: o.goal ?? '',
    pass: o.pass ?? null,
  };
}

export const logger = (opts: CaseOptions) => opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
