/** `nightshift hosts [--json] --board URL` — the fleet's hosts: up or lost, last heartbeat, jobs and slots. */
import type { Command } from 'commander';
import { listHosts, type HostView } from '../fleet/hosts.js';
import { InputError } from '../util/errors.js';
import { ago, boardUrlOf, printJson, withFleet, type StateFlag } from './daemon-client.js';

export function registerHosts(program: Command): void {
  program
    .command('hosts')
    .description('the hosts of a fleet board: up or lost, last heartbeat, running jobs and slots')
    .option('--board <url>', 'the fleet board (postgres://…; default: $NIGHTSHIFT_BOARD)')
    .option('--json', 'one JSON document: {"hosts":[…]}')
    .action(async (f: StateFlag & { json?: boolean }) => {
      const url = boardUrlOf(f);
      if (!url) throw new InputError('hosts lists a fleet board: give --board postgres://… (or NIGHTSHIFT_BOARD)');
      const hosts = await withFleet(url, (db) => listHosts(db));
      if (f.json) return printJson({ hosts });
      process.stdout.write(formatHosts(hosts));
    });
}

function formatHosts(hosts: HostView[]): string {
  if (hosts.length === 0) return 'no hosts have joined this board\n';
  const rows = hosts.map((h) => [h.name, h.why ? `${h.state} (${h.why})` : h.state, ago(h.last_seen), `${h.running}/${h.max_running}`, String(h.blocked), String(h.queued), h.web_url ?? '-']);
  const head = ['HOST', 'STATE', 'SEEN', 'RUNNING', 'BLOCKED', 'QUEUED', 'WEB'];
  const widths = head.map((x, i) => Math.max(x.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}
