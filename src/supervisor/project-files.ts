/** Reads the root files a project's check is named from (agents/project-check.ts), asynchronously, off the hot path. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECK_FILES, projectCheck, type ProjectFiles } from '../agents/project-check.js';

/** A file larger than this is not a project manifest worth reading for a test target. */
const MAX_BYTES = 256 * 1024;

/** The project's check command in `cwd`, or null; a file that cannot be read is as if absent. */
export async function projectCheckIn(cwd: string): Promise<string | null> {
  const texts = await Promise.all(CHECK_FILES.map((f) => readFile(join(cwd, f), 'utf8').then((t) => (t.length > MAX_BYTES ? '' : t), () => undefined)));
  const files: ProjectFiles = {};
  CHECK_FILES.forEach((f, i) => {
    if (texts[i] !== undefined) files[f] = texts[i];
  });
  return projectCheck(files);
}
