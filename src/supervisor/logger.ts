/** Structured logs (pino, JSON lines). Synchronous destination: a crash loses no line. */
import { pino, type Logger } from 'pino';
import stripAnsi from 'strip-ansi';

export type { Logger };

export function jobLogger(path: string, job: string): Logger {
  const dest = pino.destination({ dest: path, sync: true, mkdir: true });
  return pino({ base: { job }, timestamp: pino.stdTimeFunctions.isoTime }, dest);
}

/** Terminal text fit for a log line: no escape sequences, bounded length. */
export function plain(text: string, max = 2_000): string {
  const s = stripAnsi(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
