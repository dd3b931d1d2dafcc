/** `nightshift continue JOB` — a job blocked by a probe goes on as it was (a paused program resumes); recorded as human. */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, currentUser, type StateFlag } from './daemon-client.js';

export function registerContinue(program: Command): void {
  addStateFlag(
    program
      .command('continue')
      .description('let a job blocked by a probe (a loop, no progress, a refused claim) go on; recorded with your name')
      .argument('<job>', 'name or id'),
  ).action(async (job: string, f: StateFlag) => {
    const r = await callDaemon(f, 'continue', { job, who: currentUser() });
    process.stdout.write(`continued ${job} (was blocked: ${r.was}) as ${r.by}\n`);
  });
}
