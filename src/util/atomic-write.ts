/**
 * Rewrite a file so a reader or a crash sees the old or the new content,
 * never half. Files are 0600 by default: what is rewritten this way (a job's
 * summary and resume card) holds what the job printed.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

export function writeFileAtomic(path: string, content: string, mode = 0o600): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    const buf = Buffer.from(content, 'utf8');
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    // A half-written temporary file on a full disk holds space the board needs.
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Writes still on their way to disk, process-wide: what `filesWritten()` waits for. */
const inFlight = new Set<Promise<void>>();

/** Resolves once every AtomicFile write started so far is on disk (or has failed and been reported). */
export async function filesWritten(): Promise<void> {
  while (inFlight.size > 0) await Promise.all([...inFlight]);
}

/** Counts a write made some other way (several files, or data gathered first) among those `filesWritten()` waits for. */
export function trackWrite<T>(write: Promise<T>): Promise<T> {
  const settled = write.then(
    () => undefined,
    () => undefined,
  );
  inFlight.add(settled);
  void settled.finally(() => inFlight.delete(settled));
  return write;
}

/**
 * A file rewritten atomically from the thread pool, so the caller's thread
 * never waits for the disk: in the scale bench a summary's synchronous
 * rename waited on ext4 discarding the old file's blocks. One write is on
 * its way at a time and the newest content wins (a rewrite asked for while
 * one is under way waits, then writes whatever is newest then), so the
 * file never goes back to an older content.
 */
export class AtomicFile {
  private next: string | null = null;
  private running: Promise<void> | null = null;

  constructor(
    readonly path: string,
    private readonly onProblem: (e: Error) => void,
    private readonly mode = 0o600,
  ) {}

  write(content: string): void {
    this.next = content;
    if (this.running) return;
    const run = this.drain();
    this.running = run;
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  }

  /** Resolves when the newest content asked for is on disk. */
  flushed(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.next !== null) {
      const content = this.next;
      this.next = null;
      try {
        await writeAtomicAsync(this.path, content, this.mode);
      } catch (e) {
        this.onProblem(e as Error);
      }
    }
    this.running = null;
  }
}

async function writeAtomicAsync(path: string, content: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', mode);
  try {
    await fh.writeFile(content, 'utf8');
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  await rename(tmp, path);
}
