/** The daemon's own log: pino JSON lines, rotated by size (pino-roll) so a long night cannot fill the disk. */
import { pino, type Logger } from 'pino';

export const LOG_ROTATE = { size: '10m', count: 5 } as const;

export function daemonLogger(file: string): Logger {
  const transport = pino.transport({
    target: 'pino-roll',
    options: { file, size: LOG_ROTATE.size, limit: { count: LOG_ROTATE.count }, mkdir: true },
  });
  return pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, transport);
}
