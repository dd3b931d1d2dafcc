/** `nightshift answer JOB TEXT` — a person answers the prompt a job is blocked on (recorded as human). */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, currentUser, type StateFlag } from './daemon-client.js';

export function registerAnswer(program: Command): void {
  addStateFlag(
    program
      .command('answer')
      .description('answer a blocked job\'s prompt (e.g. 1 for a dialog, y for [y/N]); recorded with your name')
      .argument('<job>', 'name or id')
      .argument('<text>', 'the answer'),
  ).action(async (job: string, text: string, f: StateFlag) => {
    const who = currentUser();
    const r = await callDaemon(f, 'answer', { job, text, who });
    process.stdout.write(`answered ${job}: ${JSON.stringify(r.keys)} as ${r.answered_by}\n`);
  });
}
