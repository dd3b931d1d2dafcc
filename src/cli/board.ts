/** `nightshift board [--json]` — every job in attention order: state, reason, how long blocked, age, last activity. */
import type { Command } from 'commander';
import type { JobRecord } from '../board/types.js';
import { reasonText, reasonWithDetail } from '../api/reason-text.js';
import { attentionOrder } from '../board/attention.js';
import { addStateFlag, ago, callDaemon, printJson, type StateFlag } from './daemon-client.js';

export function registerBoard(program: Command): void {
  addStateFlag(program.command('board').description('list jobs: queued, running, blocked, done').option('--json', 'one JSON document')).action(
    async (f: StateFlag & { json?: boolean }) => {
      const { jobs } = await callDaemon(f, 'board', {});
      if (f.json) return printJson({ jobs });
      process.stdout.write(formatBoard(jobs));
    },
  );
}

/** A job record, with a live job's warnings (no transcript) when it has some, and when a blocked one blocked. */
type BoardRow = JobRecord & { warnings?: { code: string; message: string }[]; blocked_since?: string };

function formatBoard(given: BoardRow[]): string {
  if (given.length === 0) return 'no jobs\n';
  // A queued job's detail is why it waits (the daemon's word): short enough for the column.
  // The daemon sends them in this order; a fleet board's rows come in submission order.
  const jobs = attentionOrder(given);
  const rows = jobs.map((j) => [j.name, j.state, j.state === 'queued' ? reasonWithDetail(j.reason) : reasonText(j.reason), j.blocked_since ? ago(j.blocked_since) : '-', ago(j.created), ago(j.last_activity ?? j.started), j.id]);
  const head = ['NAME', 'STATE', 'REASON', 'BLOCKED', 'AGE', 'ACTIVE', 'ID'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  // Under the table: a warning is a sentence, too long for a column.
  const warnings = jobs.flatMap((j) => (j.warnings ?? []).map((w) => `warning: ${j.name}: ${w.message}`));
  return `${[line(head), ...rows.map(line), ...warnings].join('\n')}\n`;
}
