/** `nightshift shutdown [--now]` — ask the daemon to stop (drain by default). */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, type StateFlag } from './daemon-client.js';

export function registerShutdown(program: Command): void {
  addStateFlag(
    program
      .command('shutdown')
      .description('stop the daemon: take no new jobs and let running ones finish (--now: stop them too)')
      .option('--now', 'stop running jobs gracefully instead of waiting for them'),
  ).action(async (f: StateFlag & { now?: boolean }) => {
    const r = await callDaemon(f, 'stop', { now: f.now === true });
    process.stdout.write(`daemon stopping (${r.stopping}); ${r.running} job(s) running\n`);
  });
}
