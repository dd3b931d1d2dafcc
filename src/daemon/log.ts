/** The daemon's own log: pino JSON lines, rotated by size (pino-roll) so a long night cannot fill the disk. */
import { basename, dirname, join } from 'node:path';
import { pino, type Logger } from 'pino';
import { listOrEmpty } from '../util/soft-read.js';
import { redact } from '../notify/page.js';
import type { Redactor } from '../notify/secrets.js';
import { redactingHooks } from '../supervisor/logger.js';

export const LOG_ROTATE = { size: '10m', count: 5 } as const;

/**
 * Lines about a job (fields with `job: <id>`) go through that job's Redactor
 * (`redactorOf`), so its `--env` values stay out; every other line is
 * redacted by pattern.
 */
export function daemonLogger(file: string, redactorOf?: (job: string) => Redactor | undefined): Logger {
  const transport = pino.transport({
    target: 'pino-roll',
    options: { file, size: LOG_ROTATE.size, limit: { count: LOG_ROTATE.count }, mkdir: true },
  });
  const hooks = redactingHooks((fields) => (typeof fields?.job === 'string' ? redactorOf?.(fields.job) : undefined) ?? redact);
  return pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, ...hooks }, transport);
}

/**
 * The file pino-roll writes to for base `dir/daemon.log`: `dir/daemon.N.log`
 * with the highest N already there, else N = 1 — pino-roll's own rule, read
 * from the folder the same way, so it holds before its worker has opened
 * the file. (pino-roll counts any `*N.log` in the folder; the state
 * directory holds only ours.)
 */
export function currentLogFile(base: string): string {
  const dir = dirname(base);
  const stem = basename(base, '.log');
  let highest = 1;
  for (const f of listOrEmpty(dir)) {
    const n = f.startsWith(`${stem}.`) && f.endsWith('.log') ? Number(f.slice(stem.length + 1, -'.log'.length)) : NaN;
    if (Number.isInteger(n)) highest = Math.max(highest, n);
  }
  return join(dir, `${stem}.${highest}.log`);
}
