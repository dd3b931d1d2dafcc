/** `nightshift ptyhost` — the PTY host for a state directory (src/ptyhost/server.ts); clients start it when absent. */
import type { Command } from 'commander';
import { runHost } from '../ptyhost/run-host.js';
import { DEFAULT_IDLE_MS, DEFAULT_RING_BYTES } from '../ptyhost/server.js';
import { durationArg, durationHelp, sizeArg } from './common.js';
import { addStateFlag, stateDirOf, type StateFlag } from './daemon-client.js';

interface PtyhostFlags extends StateFlag {
  idle: number;
  buffer: number;
}

export function registerPtyhost(program: Command): void {
  addStateFlag(
    program
      .command('ptyhost')
      .description('hold the PTYs of a state directory\'s jobs so they outlive the daemon (started by clients; exits when idle)')
      .option('--idle <duration>', durationHelp('exit after this long with no client, no running job and no exit a client has yet to hear', '10s'), durationArg('--idle'))
      .option('--buffer <size>', `recent output kept per job for a client that attaches later (default ${DEFAULT_RING_BYTES / 1024} KiB)`, sizeArg('--buffer')),
  ).action(async (f: Partial<PtyhostFlags>) => {
    const ran = await runHost(stateDirOf(f), { idleMs: f.idle ?? DEFAULT_IDLE_MS, ringBytes: f.buffer ?? DEFAULT_RING_BYTES });
    // Another host holds the lock: it serves this directory, and our client will reach it.
    if (!ran) process.stderr.write(`nightshift: a PTY host already runs for ${stateDirOf(f)}\n`);
  });
}
