/**
 * What a set of drills says as a whole: time to alert by class
 * of alert, and false blocks on the must-not-fire scenarios. The README's
 * table is this, printed by `nightshift drill scenarios/`.
 */
import type { ScenarioResult } from './scenario-result.js';

export interface AlertClassRow {
  /** `prompt/<class>` for a rule's prompt, else the blocked reason and its detail (`unknown-dialog/menu`, `hung/cycling-screen`). */
  readonly alert: string;
  readonly scenarios: number;
  readonly answered: number;
  readonly escalated: number;
  /** Seconds from the condition appearing to the alert. */
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

export interface DrillSummary {
  readonly by_class: AlertClassRow[];
  /** Scenarios whose expectations forbid any block (`never: [{state: blocked}]`). */
  readonly must_not_fire: number;
  /** Of those, how many blocked anyway. */
  readonly false_blocks: number;
  /** Scenarios with no alert at all. */
  readonly no_alert: number;
}

function alertOf(r: ScenarioResult): string | undefined {
  const a = r.actions[0];
  if (!a) return undefined;
  if (a.reason === 'prompt') return `prompt/${a.class ?? 'unknown'}`;
  const block = r.timeline.find((e) => e.state === 'blocked' && e.reason === a.reason);
  return block?.detail ? `${a.reason}/${block.detail.split(':')[0]}` : a.reason;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round(((s[m - 1]! + s[m]!) / 2) * 1_000) / 1_000;
}

export function summarise(results: readonly ScenarioResult[]): DrillSummary {
  const groups = new Map<string, ScenarioResult[]>();
  for (const r of results) {
    const alert = alertOf(r);
    if (alert) groups.set(alert, [...(groups.get(alert) ?? []), r]);
  }
  const by_class = [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([alert, rs]): AlertClassRow => {
    const times = rs.map((r) => r.time_to_alert!);
    return {
      alert,
      scenarios: rs.length,
      answered: rs.filter((r) => r.actions[0]!.kind === 'answer').length,
      escalated: rs.filter((r) => r.actions[0]!.kind === 'escalate').length,
      min: Math.min(...times),
      median: median(times),
      max: Math.max(...times),
    };
  });
  const guarded = results.filter((r) => r.must_not_block);
  return {
    by_class,
    must_not_fire: guarded.length,
    false_blocks: guarded.filter((r) => r.timeline.some((e) => e.state === 'blocked')).length,
    no_alert: results.filter((r) => r.actions.length === 0).length,
  };
}

const secs = (n: number) => `${n}s`;

export function formatSummary(s: DrillSummary): string {
  const head = ['alert', 'scenarios', 'answered', 'escalated', 'min', 'median', 'max'];
  const rows = s.by_class.map((c) => [c.alert, String(c.scenarios), String(c.answered), String(c.escalated), secs(c.min), secs(c.median), secs(c.max)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd();
  return [
    'time to alert by class (each scenario\'s first alert):',
    line(head),
    ...rows.map(line),
    `false blocks: ${s.false_blocks} of ${s.must_not_fire} must-not-fire scenario(s); ${s.no_alert} scenario(s) without an alert`,
  ].join('\n');
}
