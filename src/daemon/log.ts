/** The daemon's own log: pino JSON lines, rotated by size (pino-roll) so a long night cannot fill the disk. */
import { pino, type Logger } from 'pino';
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
