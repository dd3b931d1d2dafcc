/**
 * Shared rules for picking a job's transcript among the files an agent wrote.
 *
 * A candidate must be unclaimed, created after the job started (minus a little
 * slack for coarse file-system clocks) and, when the file says so, belong to
 * the job's cwd. Among those, a file whose first prompt is one of the job's
 * arguments wins; a file whose first prompt is some other text is taken only
 * after a grace period (it is probably another job's, and ours is not written
 * yet); otherwise the earliest-created file wins, because with two jobs in one
 * cwd the earlier job's agent usually writes first.
 */
import { open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentJob } from './types.js';
import { isRecord, timeOf } from './normalise.js';

/** File-system timestamps can trail Date.now() by a clock tick or more. */
export const CREATED_SLACK_MS = 1000;
/** How long a job waits for a file carrying its own prompt before taking another. */
export const MISMATCH_GRACE_MS = 10_000;
/** Enough of a file's start to find its metadata and first prompt. */
const HEAD_BYTES = 256 * 1024;

export interface Candidate {
  readonly path: string;
  /** Epoch ms the file was created (birth time, else its first timestamp, else mtime). */
  readonly createdAt: number;
  /** The agent's cwd as recorded in the file, when it records one. */
  readonly cwd?: string;
  /** The first user prompt in the file, once written. */
  readonly firstPrompt?: string;
}

export function homeOf(env: Readonly<Record<string, string>>): string {
  return env.HOME || homedir();
}

/** The cwd as given and as resolved: agents record either. */
export async function cwdForms(cwd: string): Promise<string[]> {
  const abs = resolve(cwd);
  const real = await realpath(abs).catch(() => abs);
  return real === abs ? [abs] : [real, abs];
}

/** The complete lines at the start of a file, parsed; unparseable ones skipped. */
export async function readHead(path: string, bytes = HEAD_BYTES): Promise<Record<string, unknown>[]> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    const text = buf.toString('utf8', 0, bytesRead);
    const end = text.lastIndexOf('\n');
    const out: Record<string, unknown>[] = [];
    for (const line of end < 0 ? [] : text.slice(0, end).split('\n')) {
      try {
        const v: unknown = JSON.parse(line);
        if (isRecord(v)) out.push(v);
      } catch {
        // A torn or foreign line says nothing about ownership.
      }
    }
    return out;
  } finally {
    await fh.close();
  }
}

/**
 * Files in `dir` with an accepted name, written to since the job started (an
 * older file cannot be its transcript). A stat is cheap; reading the head of
 * every old session in a busy project folder on every poll is not.
 */
export async function recentFiles(dir: string, accept: (name: string) => boolean, since: number): Promise<string[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter(accept);
  const fresh = await Promise.all(
    names.map(async (n) => {
      const st = await stat(join(dir, n)).catch(() => null);
      return st !== null && st.isFile() && st.mtimeMs >= since - CREATED_SLACK_MS ? join(dir, n) : null;
    }),
  );
  return fresh.filter((p): p is string => p !== null);
}

/** Birth time where the file system keeps one; else the first record's timestamp; else mtime. */
export async function createdAt(path: string, records: readonly Record<string, unknown>[]): Promise<number | null> {
  const st = await stat(path).catch(() => null);
  if (st === null) return null;
  if (st.birthtimeMs > 0) return st.birthtimeMs;
  for (const r of records) {
    const t = timeOf(r.timestamp, NaN);
    if (!Number.isNaN(t)) return t;
  }
  return st.mtimeMs;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Arguments that look like a prompt (contain a space and are not a flag). */
function promptArgs(job: AgentJob): Set<string> {
  const out = new Set<string>();
  for (const a of (job.argv ?? []).slice(1)) if (!a.startsWith('-') && /\s/.test(a.trim())) out.add(squash(a));
  return out;
}

/** 2: carries one of the job's prompts; 1: no prompt yet / nothing to compare; 0: another prompt. */
function promptScore(c: Candidate, prompts: Set<string>): number {
  if (c.firstPrompt === undefined || prompts.size === 0) return 1;
  return prompts.has(squash(c.firstPrompt)) ? 2 : 0;
}

/** The job's transcript among candidates, or null when none qualifies yet. */
export function chooseCandidate(job: AgentJob, candidates: readonly Candidate[], cwds: readonly string[], now: number): string | null {
  const prompts = promptArgs(job);
  const eligible = candidates
    .filter((c) => !job.claimed.has(c.path))
    .filter((c) => c.createdAt >= job.startedAt - CREATED_SLACK_MS)
    .filter((c) => c.cwd === undefined || cwds.includes(resolve(c.cwd)))
    .map((c) => ({ c, score: promptScore(c, prompts) }))
    .filter(({ score }) => score > 0 || now - job.startedAt >= MISMATCH_GRACE_MS);
  eligible.sort((a, b) => b.score - a.score || a.c.createdAt - b.c.createdAt || a.c.path.localeCompare(b.c.path));
  return eligible[0]?.c.path ?? null;
}

/** Parent pid from /proc (Linux); undefined elsewhere or when the process is gone. */
async function parentPid(pid: number): Promise<number | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (text === null) return undefined;
  // comm may contain spaces and parentheses: fields resume after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** Is `pid` the job's process or one of its descendants (the agent may run under a shell or npx)? */
export async function isJobProcess(pid: number, jobPid: number): Promise<boolean> {
  let p: number | undefined = pid;
  for (let depth = 0; p !== undefined && p > 1 && depth < 32; depth++) {
    if (p === jobPid) return true;
    p = await parentPid(p);
  }
  return false;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
