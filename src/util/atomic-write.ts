/**
 * Rewrite a file so a reader or a crash sees the old or the new content,
 * never half. Files are 0600 by default: what is rewritten this way (a job's
 * summary and resume card) holds what the job printed.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

export function writeFileAtomic(path: string, content: string, mode = 0o600): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}
