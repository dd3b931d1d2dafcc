/** `nightshift cancel JOB` — a queued job never starts; a running one is stopped gracefully. */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, currentUser, type StateFlag } from './daemon-client.js';

export function registerCancel(program: Command): void {
  addStateFlag(program.command('cancel').description('cancel a queued or running job').argument('<job>', 'name or id')).action(
    async (job: string, f: StateFlag) => {
      await callDaemon(f, 'cancel', { job, who: currentUser() });
      process.stdout.write(`cancelled ${job}\n`);
    },
  );
}
