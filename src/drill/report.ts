/** The human-readable drill report: one block per scenario, then a verdict line. */
import { formatDuration } from '../util/duration.js';
import type { ScenarioResult, TimelineEntry } from './scenario-result.js';
import { formatSummary, summarise } from './summary.js';

const verdict = (p: boolean | null) => (p === null ? 'NO EXPECTATIONS' : p ? 'PASS' : 'FAIL');

function reasonText(e: TimelineEntry): string {
  const parts = [e.reason];
  if (e.rule) parts.push(e.rule);
  if (e.class) parts.push(`(${e.class})`);
  if (e.exit_code !== undefined && e.exit_code !== null) parts.push(`code ${e.exit_code}`);
  if (e.signal) parts.push(e.signal);
  if (e.detail) parts.push(`[${e.detail}]`);
  return parts.join(' ');
}

const clock = (s: number) => s.toFixed(3).padStart(10);

export function formatScenario(r: ScenarioResult): string {
  const lines = [`${r.file}  ${formatDuration(r.duration * 1_000)} of recording  ${verdict(r.passed)}`];
  if (r.description) lines.push(`  ${r.description}`);
  lines.push(`  ${'t (s)'.padStart(10)}  ${'state'.padEnd(8)} reason`);
  for (const e of r.timeline) lines.push(`  ${clock(e.t)}  ${e.state.padEnd(8)} ${reasonText(e)}`);
  for (const a of r.actions) {
    const last = a.prompt?.split('\n').filter((l) => l.trim()).pop()?.trim();
    lines.push(`  ${clock(a.t)}  ${a.kind.padEnd(8)} ${a.rule ?? a.reason}${a.class ? ` (${a.class})` : ''}${last ? `  «${last}»` : ''}`);
  }
  const tta = r.time_to_alert === null ? 'none' : `${r.time_to_alert}s`;
  lines.push(`  final: ${r.final.state} ${r.final.reason} · actions: ${r.actions.length} · time to alert: ${tta}`);
  for (const f of r.failures) lines.push(`  ✗ ${f}`);
  return lines.join('\n');
}

export function formatReport(results: readonly ScenarioResult[]): string {
  const blocks = results.map(formatScenario);
  const failed = results.filter((r) => r.passed === false).length;
  const passed = results.filter((r) => r.passed === true).length;
  const none = results.length - failed - passed;
  if (results.length > 1) blocks.push(formatSummary(summarise(results)));
  blocks.push(`${results.length} scenario(s): ${passed} passed, ${failed} failed, ${none} without expectations`);
  return blocks.join('\n\n');
}
