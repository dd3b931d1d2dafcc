/**
 * A sequence of k calls coming round again with the same results: the same
 * seven searches, all "No matches found", for forty calls. Each call repeats
 * only every k calls, so a sliding window shorter than the loop never holds
 * `repeat` copies of it; and a loop that rewrites the same file each round
 * looks new to no-progress. Judged like a single repeated call: `repeat`
 * copies of the loop's first call, with every call in between repeating too.
 */
import type { ProbeProfile } from './types.js';
import type { Step } from './steps.js';

/** Longer loops are rare and an agent's exploration is easily mistaken for one. */
export const MAX_CYCLE = 10;

export interface Cycle {
  /** Calls per round. */
  readonly length: number;
  /** Rounds begun: the loop's first call has come this many times. */
  readonly rounds: number;
  /** The first round. */
  readonly steps: readonly Step[];
  /** Every call of the loop so far, oldest first. */
  readonly ids: readonly string[];
}

/**
 * The shortest loop the window cannot see: its calls repeat further apart
 * than `repeat` copies fit in `window` calls.
 */
export function shortestUnseenCycle(p: Pick<ProbeProfile, 'window' | 'repeat'>): number {
  return Math.max(2, Math.floor((p.window - 1) / (p.repeat - 1)) + 1);
}

/** Loops of `from`…MAX_CYCLE calls (each at its shortest length) that began `repeat` rounds. */
export function cyclesOf(steps: readonly Step[], from: number, repeat: number): Cycle[] {
  const out: Cycle[] = [];
  for (let k = from; k <= MAX_CYCLE; k++) {
    for (const [start, end] of periodicRuns(steps, k)) {
      const len = end - start;
      if (len < (repeat - 1) * k + 1 || hasShorterPeriod(steps, start, k)) continue;
      const run = steps.slice(start, end);
      out.push({ length: k, rounds: Math.ceil(len / k), steps: run.slice(0, k), ids: run.map((s) => s.call.id) });
    }
  }
  return out;
}

/** Maximal [start, end) ranges where every step equals the one k before it (same call, same result). */
function periodicRuns(steps: readonly Step[], k: number): [number, number][] {
  const runs: [number, number][] = [];
  let first = -1;
  for (let i = k; i <= steps.length; i++) {
    const key = steps[i]?.key ?? null;
    if (i < steps.length && key !== null && key === steps[i - k]!.key) {
      if (first < 0) first = i;
      continue;
    }
    if (first >= 0) runs.push([first - k, i]);
    first = -1;
  }
  return runs;
}

/** The loop is a shorter one repeated (A B A B as a loop of 4): report it at its own length. */
function hasShorterPeriod(steps: readonly Step[], start: number, k: number): boolean {
  for (let d = 1; d < k; d++) {
    if (k % d !== 0) continue;
    let same = true;
    for (let j = start; j + d < start + k && same; j++) same = steps[j]!.key === steps[j + d]!.key;
    if (same) return true;
  }
  return false;
}
