/** `nightshift status [--json]` — is the daemon up, with what, holding what, and how the last page went. */
import type { Command } from 'commander';
import { runningDaemonPid } from '../daemon/lock.js';
import { addStateFlag, boardUrlOf, callDaemon, printJson, stateDirOf, type StateFlag } from './daemon-client.js';
import { EXIT } from './exit.js';
import { statusText } from './status-text.js';

export function registerStatus(program: Command): void {
  addStateFlag(
    program
      .command('status')
      .description(`the daemon's pid, version, uptime, config, notifiers, job slots and last page (exit ${EXIT.notRunning} when none runs)`)
      .option('--json', 'the record as one JSON document'),
  ).action(async (f: StateFlag & { json?: boolean }) => {
    const stateDir = stateDirOf(f);
    // Asked before the socket: "not running" is an answer here, not an error to be advised about.
    if (boardUrlOf(f) === null && runningDaemonPid(stateDir) === null) {
      process.stderr.write(`nightshift: no daemon is running for ${stateDir}\n`);
      process.exitCode = EXIT.notRunning;
      return;
    }
    const s = await callDaemon(f, 'status', {});
    if (f.json) return printJson(s);
    process.stdout.write(`${statusText(s, Date.now())}\n`);
  });
}
