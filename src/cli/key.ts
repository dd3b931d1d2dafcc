/** `nightshift key JOB NAME` — press a named key in a job (enter, escape, ctrl-c, up, …). */
import type { Command } from 'commander';
import { keySequence } from '../core/keys.js';
import { addStateFlag, callDaemon, currentUser, type StateFlag } from './daemon-client.js';

export function registerKey(program: Command): void {
  addStateFlag(
    program.command('key').description('press a named key in a running job').argument('<job>', 'name or id').argument('<key>', 'enter, escape, tab, ctrl-c, up, …'),
  ).action(async (job: string, key: string, f: StateFlag) => {
    keySequence(key);
    await callDaemon(f, 'key', { job, key, who: currentUser() });
    process.stdout.write(`pressed ${key} in ${job}\n`);
  });
}
