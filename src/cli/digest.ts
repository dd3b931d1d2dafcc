/** `nightshift digest [--since 12h] [--json]` — the night in the order a person acts on it. */
import type { Command } from 'commander';
import { digestText } from '../api/digest-text.js';
import { parseDurationFlag } from '../util/duration.js';
import { InputError } from '../util/errors.js';
import { addStateFlag, callDaemon, printJson, type StateFlag } from './daemon-client.js';

export function registerDigest(program: Command): void {
  addStateFlag(
    program
      .command('digest')
      .description('the night: what needs you, what ended badly, what was answered for you, cost, probes')
      .option('--since <duration>', 'how far back the night goes', '12h')
      .option('--json', 'one JSON document'),
  ).action(async (f: StateFlag & { since: string; json?: boolean }) => {
    const since_ms = parseDurationFlag(f.since, '--since');
    if (since_ms <= 0) throw new InputError(`--since "${f.since}": give a duration above zero, e.g. 12h`);
    const d = await callDaemon(f, 'digest', { since_ms });
    if (f.json) return printJson(d);
    process.stdout.write(`${digestText(d).join('\n')}\n`);
  });
}
