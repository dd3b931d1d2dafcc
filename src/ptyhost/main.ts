/**
 * The entry a client starts the host with: `node dist/src/ptyhost/main.js
 * --state DIR [--idle 10s] [--buffer 512k]`, the same as `nightshift
 * ptyhost`. It loads only the host's own modules; the CLI's main loads
 * every verb (the web server, SQLite, xterm), which tripled the host's RSS.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isInputError } from '../util/errors.js';
import { parseDurationFlag } from '../util/duration.js';
import { parseSize } from '../util/size.js';
import { runHost } from './run-host.js';
import { DEFAULT_IDLE_MS, DEFAULT_RING_BYTES } from './server.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { state: { type: 'string' }, idle: { type: 'string' }, buffer: { type: 'string' } } });
  if (!values.state) throw new Error('usage: ptyhost/main.js --state DIR [--idle DURATION] [--buffer SIZE]');
  const idleMs = values.idle === undefined ? DEFAULT_IDLE_MS : parseDurationFlag(values.idle, '--idle');
  const ringBytes = values.buffer === undefined ? DEFAULT_RING_BYTES : parseSize(values.buffer, '--buffer');
  if (!(await runHost(resolve(values.state), { idleMs, ringBytes }))) process.stderr.write(`nightshift: a PTY host already runs for ${values.state}\n`);
}

try {
  await main();
} catch (e) {
  process.stderr.write(`nightshift ptyhost: ${isInputError(e) ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 2;
}
