/**
 * Rewrite a file so a reader or a crash sees the old or the new content,
 * never half. Files are 0600 by default: what is rewritten this way (a job's
 * summary and resume card) holds what the job printed.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

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
