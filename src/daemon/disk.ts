/**
 * A full disk must not cost the board its truth. At start the daemon parks
 * a ballast file in its run directory; the first write that fails for lack
 * of space releases it, so the board, the outbox and the small job files
 * (summary, evidence) have room to record what happens next, while the
 * recordings, the big writers, are suspended for the rest of this daemon's
 * life.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Enough for many board transactions and pages (SQLite WAL frames are 4 KB). */
export const BALLAST_BYTES = 4 * 1024 * 1024;

export class DiskGuard {
  readonly path: string;
  private held = false;
  full = false;

  constructor(runDir: string) {
    this.path = join(runDir, 'ballast');
  }

  /** Returns a problem to warn about when the ballast cannot be written (the disk is already short). */
  reserve(): string | undefined {
    try {
      writeFileSync(this.path, Buffer.alloc(BALLAST_BYTES), { mode: 0o600 });
      this.held = true;
      return undefined;
    } catch (e) {
      rmSync(this.path, { force: true });
      return `cannot reserve ${BALLAST_BYTES} bytes of ballast in ${this.path}: ${(e as Error).message}`;
    }
  }

  /** The disk is full: give the ballast back. True the first time. */
  release(): boolean {
    if (this.full) return false;
    this.full = true;
    if (this.held) rmSync(this.path, { force: true });
    this.held = false;
    return true;
  }

  dispose(): void {
    if (this.held) rmSync(this.path, { force: true });
    this.held = false;
  }
}
