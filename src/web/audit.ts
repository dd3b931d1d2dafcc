/**
 * The web view's audit log: one JSON line per action (a sign-in, an answer,
 * a token made or revoked), appended to a private file beside the board.
 * Lines are written through a stream, not appendFileSync: an HTTP request
 * must not wait on the disk. The file is 0600: it names people and jobs.
 */
import { chmodSync, closeSync, createWriteStream, openSync, type WriteStream } from 'node:fs';

export interface AuditEntry {
  /** Who acted: a person's name, `human:USER` on the control socket. */
  readonly who: string;
  /** What was tried: a command name (`answer`, `web-token`) or `login`. */
  readonly action: string;
  readonly job?: string;
  /** Whether it was allowed and worked. */
  readonly ok: boolean;
  readonly ip?: string;
  readonly detail?: string;
}

/**
 * Anything shaped like our own credentials (tokens nst_, codes nsc_,
 * session ids nss_): a caller's detail must never carry one into the file.
 */
const CREDENTIAL = /\bns[tcs]_[A-Za-z0-9_-]{8,}/g;

export const scrubCredentials = (text: string): string => text.replace(CREDENTIAL, (m) => `${m.slice(0, 4)}[redacted]`);

export class AuditLog {
  private readonly out: WriteStream;

  constructor(
    readonly path: string,
    onError: (e: Error) => void = () => undefined,
  ) {
    // Created here so it is born 0600 (a stream's mode only applies to a new file); an older file is tightened.
    closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
    this.out = createWriteStream(path, { flags: 'a' });
    // A full disk must not take the daemon down: the caller logs it.
    this.out.on('error', onError);
  }

  write(e: AuditEntry, now: number): void {
    const line = {
      time: new Date(now).toISOString(),
      who: e.who,
      action: e.action,
      ...(e.job !== undefined ? { job: e.job } : {}),
      ok: e.ok,
      ...(e.ip !== undefined ? { ip: e.ip } : {}),
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
    };
    this.out.write(`${scrubCredentials(JSON.stringify(line))}\n`);
  }

  /** Flushes what is queued and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.out.closed || this.out.destroyed) return resolve();
      this.out.end(() => resolve());
    });
  }
}
