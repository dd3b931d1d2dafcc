/** `nightshift show JOB [--json]` — state, reason, signals, the current screen, the last evidence. */
import type { Command } from 'commander';
import type { OutboxRow } from '../notify/outbox.js';
import { reasonWithDetail } from '../api/reason-text.js';
import type { CommandResult } from '../api/commands.js';
import { addStateFlag, ago, callDaemon, printJson, type StateFlag } from './daemon-client.js';

/** What `show` returns: the daemon command's own result type. */
type Shown = CommandResult<'show'>;

export function registerShow(program: Command): void {
  addStateFlag(
    program.command('show').description('one job in detail').argument('<job>', 'name or id').option('--json', 'one JSON document'),
  ).action(async (job: string, f: StateFlag & { json?: boolean }) => {
    const s = await callDaemon(f, 'show', { job });
    if (f.json) return printJson(s);
    process.stdout.write(formatShown(s));
  });
}

function formatShown(s: Shown): string {
  const j = s.job;
  const out = [
    `${j.name} (${j.id})`,
    `  state:    ${j.state} — ${reasonWithDetail(j.reason)}`,
    `  command:  ${j.command.join(' ')}`,
    `  cwd:      ${j.cwd}`,
    `  created:  ${j.created} (${ago(j.created)} ago)`,
  ];
  if (j.started) out.push(`  started:  ${j.started}`);
  if (j.ended) out.push(`  ended:    ${j.ended}${j.exit ? ` exit ${j.exit.code}${j.exit.signal ? ` (${j.exit.signal})` : ''}` : ''}`);
  if (s.signals) out.push(`  signals:  ${Object.entries(s.signals).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}`);
  if (s.rules_coverage) out.push(`  rules:    ${s.rules_coverage.note}`);
  for (const w of s.warnings ?? []) out.push(`  warning:  ${w.message} (${w.code}, ${w.time})`);
  // On a fleet board: where it runs, and how fresh a screen from the database is.
  const fleet = s as Shown & { host?: string | null; screen_updated?: string | null; live_url?: string | null; remote?: boolean };
  if (fleet.host) out.push(`  host:     ${fleet.host}${fleet.live_url ? ` (live: ${fleet.live_url})` : ''}`);
  if (j.paths) out.push(`  files:    ${j.paths.dir}${fleet.host ? ` on ${fleet.host}` : ''}`);
  out.push('  transitions:');
  for (const t of s.transitions) out.push(`    ${t.time}  ${t.state.padEnd(8)} ${reasonWithDetail(t.reason)}`);
  const stored = fleet.host && !s.signals && fleet.screen_updated ? ` (stored by ${fleet.host} at ${fleet.screen_updated})` : '';
  if (s.screen !== null) out.push(`  screen:${stored}`, ...s.screen.split('\n').map((l) => `    │ ${l}`));
  if (s.evidence.length) {
    out.push('  evidence:');
    for (const e of s.evidence) out.push(`    ${evidenceLine(e)}`);
  }
  out.push(...formatPages(s.pages));
  return `${out.join('\n')}\n`;
}

/** One evidence record as a line: a verdict says its probe, message and the transcript events it cites. */
export function evidenceLine(e: Record<string, unknown>): string {
  if (e.type === 'verdict') {
    const cites = Array.isArray(e.evidence) && e.evidence.length ? ` [events ${e.evidence.map(String).join(' ')}]` : '';
    return `verdict ${String(e.probe)} (${String(e.severity)}) → ${String(e.response)}: ${String(e.message)}${cites}`;
  }
  return `${String(e.type)} ${String(e.decision ?? e.followed ?? '')} ${String(e.why ?? '')} ${e.answered_by ? `by ${String(e.answered_by)}` : ''}`.trimEnd();
}

/** Kind, status, round and notifier of every page; failures only when there were some. */
function formatPages(pages: OutboxRow[]): string[] {
  if (!pages.length) return ['  pages:    none'];
  const rows = pages.map((p) => {
    const failed = p.attempts ? `  ${p.attempts} failed tr${p.attempts === 1 ? 'y' : 'ies'}${p.last_error ? `, last: ${p.last_error}` : ''}` : '';
    return `    ${p.page.kind.padEnd(8)} ${p.status.padEnd(9)} round ${p.round}  ${p.notifier}${failed}`;
  });
  return ['  pages:', ...rows];
}
