/** Structured logs (pino, JSON lines). Synchronous destination: a crash loses no line. */
import { pino, type LoggerOptions, type Logger } from 'pino';
import stripAnsi from 'strip-ansi';
import { redactDeep, type Redactor } from '../notify/secrets.js';

export type { Logger };

/**
 * `jobLogger(path, job, redact)`: every string of every line (fields and
 * message) goes through the job's Redactor before it is written.
 */
export function jobLogger(path: string, job: string, redact?: Redactor, onProblem?: (e: Error) => void): Logger {
  const dest = pino.destination({ dest: path, sync: true, mkdir: true, mode: 0o600 });
  // Without a listener a failed write (a full disk) would be an uncaught 'error' and kill the daemon.
  dest.on('error', (e: Error) => onProblem?.(e));
  return pino({ base: { job }, timestamp: pino.stdTimeFunctions.isoTime, ...redactingHooks(() => redact) }, dest);
}

/** Flushes and closes a jobLogger's file: a daemon running hundreds of jobs must not keep one fd per finished job. */
export function closeJobLogger(log: Logger): void {
  const dest = (log as unknown as Record<symbol, { flushSync?: () => void; end?: () => void } | undefined>)[pino.symbols.streamSym];
  try {
    dest?.flushSync?.();
  } catch {
    // A full disk: what could not be written is lost either way.
  }
  dest?.end?.();
}

/**
 * pino hooks that redact a line's arguments with the Redactor `pick`
 * chooses for it (by the line's fields: the daemon log picks by `job`).
 */
export function redactingHooks(pick: (fields: Record<string, unknown> | undefined) => Redactor | undefined): Pick<LoggerOptions, 'hooks'> {
  return {
    hooks: {
      logMethod(args, method) {
        const first = args[0] as unknown;
        const fields = first !== null && typeof first === 'object' ? (first as Record<string, unknown>) : undefined;
        const r = pick(fields);
        if (!r) return method.apply(this, args);
        return method.apply(this, redactDeep(args, r) as typeof args);
      },
    },
  };
}

/** Terminal text fit for a log line: no escape sequences, bounded length. */
export function plain(text: string, max = 2_000): string {
  const s = stripAnsi(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
