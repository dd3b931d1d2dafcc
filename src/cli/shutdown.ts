/** `nightshift shutdown [--now | --detach]` — ask the daemon to stop (drain by default). */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, type StateFlag } from './daemon-client.js';

export function registerShutdown(program: Command): void {
  addStateFlag(
    program
      .command('shutdown')
      .description('stop the daemon: take no new jobs and let running ones finish (--now: stop them too; --detach: leave them running for the next daemon)')
      .option('--now', 'stop running jobs gracefully instead of waiting for them')
      .option('--detach', 'exit at once and leave every job running in the PTY host; the next daemon adopts them'),
  ).action(async (f: StateFlag & { now?: boolean; detach?: boolean }) => {
    const r = await callDaemon(f, 'stop', { now: f.now === true, detach: f.detach === true });
    process.stdout.write(`daemon stopping (${r.stopping}); ${r.running} job(s) running\n`);
  });
}
