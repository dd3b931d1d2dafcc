/** `nightshift attach JOB` — watch a job live and type into it; Ctrl-] detaches, the job keeps running. */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, currentUser, type StateFlag } from './daemon-client.js';

/** Ctrl-] (0x1d), telnet's escape: rarely meaningful to an agent, easy to reach. */
const DETACH = '\x1d';

export function registerAttach(program: Command): void {
  addStateFlag(program.command('attach').description('live view of a job, with typing; detach with Ctrl-]').argument('<job>', 'name or id')).action(
    async (job: string, f: StateFlag) => {
      const stdin = process.stdin;
      const raw = stdin.isTTY === true;
      if (raw) stdin.setRawMode(true);
      // Attached once the daemon sends the screen: a job that cannot be attached to prints only why.
      let attached = false;
      try {
        await callDaemon(f, 'attach', { job, who: currentUser() }, {
          onData: (d) => {
            if (!attached) process.stderr.write(`attached to ${job}; detach with Ctrl-]\r\n`);
            attached = true;
            process.stdout.write(d);
          },
          onOpen: (send, close) => {
            stdin.on('data', (chunk: Buffer) => {
              const s = chunk.toString('utf8');
              const at = s.indexOf(DETACH);
              if (at === -1) return send(s);
              if (at > 0) send(s.slice(0, at));
              close();
            });
            stdin.resume();
          },
        });
      } finally {
        if (raw) stdin.setRawMode(false);
        stdin.pause();
        if (attached) process.stderr.write(`\r\ndetached from ${job}\r\n`);
      }
    },
  );
}
