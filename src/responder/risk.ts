/** Layer 2: risk verbs and patterns (rules/risk.yaml) anywhere in the prompt's context. */
import type { RiskPattern } from '../core/prompt-match.js';

export interface RiskHit {
  readonly id: string;
  readonly text: string;
}

export function scanRisks(risks: readonly RiskPattern[], texts: readonly string[]): RiskHit[] {
  const hits: RiskHit[] = [];
  for (const r of risks) {
    for (const t of texts) {
      r.match.lastIndex = 0;
      const m = r.match.exec(t);
      if (m) {
        hits.push({ id: r.id, text: m[0] });
        break;
      }
    }
  }
  return hits;
}
