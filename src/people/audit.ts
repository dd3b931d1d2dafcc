/**
 * The web view's audit log: one JSON line per action (a sign-in, an answer,
 * a token made or revoked), appended to a private file beside the board.
 * Lines are written through a stream, not appendFileSync: an HTTP request
 * must not wait on the disk. The file is 0600: it names people and jobs.
 * Past maxBytes it is rotated (web-audit.jsonl.1, .2, … the newest `keep`
 * kept), as the daemon's log is, so a busy view cannot fill the disk.
 */
import { chmodSync, createWriteStream, existsSync, openSync, renameSync, statSync, type WriteStream } from 'node:fs';

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

export interface AuditRotation {
  readonly maxBytes: number;
  readonly keep: number;
}

export const DEFAULT_AUDIT_ROTATION: AuditRotation = { maxBytes: 10 * 1024 * 1024, keep: 5 };

export class AuditLog {
  private out: WriteStream;
  private bytes: number;
  /** Rotated-out streams still flushing into their renamed files. */
  private readonly flushing: Promise<unknown>[] = [];

  constructor(
    readonly path: string,
    private readonly onError: (e: Error) => void = () => undefined,
    private readonly rotation: AuditRotation = DEFAULT_AUDIT_ROTATION,
  ) {
    this.out = this.open();
    this.bytes = statSync(path).size;
  }

  private open(): WriteStream {
    // Opened here, not by the stream: born 0600, an older file tightened, and the descriptor is
    // the file's from now on, so a rotation's rename cannot send queued lines to the next file.
    const fd = openSync(this.path, 'a', 0o600);
    chmodSync(this.path, 0o600);
    const out = createWriteStream(this.path, { fd });
    // A full disk must not take the daemon down: the caller logs it.
    out.on('error', this.onError);
    return out;
  }

  /**
   * Renames are rare (once per maxBytes) and small, so they are done in line;
   * the old stream goes on flushing into the renamed file (its descriptor
   * follows the inode), so no line is lost or split.
   */
  private rotate(): void {
    const { path, rotation } = this;
    try {
      for (let k = rotation.keep - 1; k >= 1; k--) if (existsSync(`${path}.${k}`)) renameSync(`${path}.${k}`, `${path}.${k + 1}`);
      renameSync(path, `${path}.1`);
    } catch (e) {
      return this.onError(e as Error);
    }
    const old = this.out;
    this.flushing.push(new Promise((resolve) => old.end(resolve)));
    this.out = this.open();
    this.bytes = 0;
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
    const text = `${scrubCredentials(JSON.stringify(line))}\n`;
    if (this.bytes > 0 && this.bytes + text.length > this.rotation.maxBytes) this.rotate();
    this.bytes += Buffer.byteLength(text);
    this.out.write(text);
  }

  /** Flushes what is queued (rotated files too) and closes the file. */
  async close(): Promise<void> {
    await Promise.all(this.flushing.splice(0));
    await new Promise<void>((resolve) => {
      if (this.out.closed || this.out.destroyed) return resolve();
      this.out.end(() => resolve());
    });
  }
}
