/** What changed in a job's working tree: `git status --porcelain` before and after. */
import { execFileSync } from 'node:child_process';

export type GitSnapshot = ReadonlyMap<string, string> | null;

/** Path → status code; null when the folder is not a git work tree (or git is missing). */
export function gitSnapshot(cwd: string): GitSnapshot {
  try {
    const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd,
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const map = new Map<string, string>();
    for (const line of out.split('\n')) if (line.length > 3) map.set(line.slice(3), line.slice(0, 2));
    return map;
  } catch {
    return null;
  }
}

/** Paths whose status differs between two snapshots; null when either is unknown. */
export function changedPaths(before: GitSnapshot, after: GitSnapshot): string[] | null {
  if (!before || !after) return null;
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}
