/** `nightshift send JOB TEXT` — type a line into a job (Enter after it). */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, currentUser, type StateFlag } from './daemon-client.js';

export function registerSend(program: Command): void {
  addStateFlag(
    program
      .command('send')
      .description('type text into a running job, then Enter')
      .argument('<job>', 'name or id')
      .argument('<text>', 'what to type')
      .option('--no-enter', 'do not press Enter after the text'),
  ).action(async (job: string, text: string, f: StateFlag & { enter: boolean }) => {
    await callDaemon(f, 'send', { job, text, enter: f.enter, who: currentUser() });
    process.stdout.write(`sent to ${job}\n`);
  });
}
