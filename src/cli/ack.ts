/** `nightshift ack JOB` — acknowledge a job's pages: no more re-pages for its open episodes. */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, type StateFlag } from './daemon-client.js';

export function registerAck(program: Command): void {
  addStateFlag(program.command('ack').description('acknowledge a job\'s pages (stops re-paging)').argument('<job>', 'name or id')).action(
    async (job: string, f: StateFlag) => {
      const r = await callDaemon(f, 'ack', { job });
      process.stdout.write(`acknowledged ${job} (${r.acknowledged} page(s))\n`);
    },
  );
}
