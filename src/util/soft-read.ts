/** Reads that treat a missing or unreadable path as nothing: /proc entries vanish as processes exit, folders may not exist yet. */
import { readdirSync, readFileSync } from 'node:fs';

export function readOrUndefined(file: string, encoding: BufferEncoding = 'utf8'): string | undefined {
  try {
    return readFileSync(file, encoding);
  } catch {
    return undefined;
  }
}

export function listOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
