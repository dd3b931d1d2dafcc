/**
 * What changed in a job's working tree: `git status --porcelain` before and
 * after. Run as a child process the daemon awaits: in a big tree it takes
 * long enough that a synchronous call would stall every job, the control
 * socket and the pager on each turn. Started from a thread of its own
 * (execFileOffThread): even starting a child held the daemon's thread.
 */
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import { execFileOffThread } from '../util/exec-thread.js';

export type GitSnapshot = ReadonlyMap<string, string> | null;

const GIT_TIMEOUT_MS = 10_000;
/** execFile's 1 MB default would fail a tree with ~30 000 changed paths; null is "unknown" anyway, but needlessly. */
const MAX_OUTPUT = 256 << 20;
const GIT_NICENESS = 10;

/** Path → status code; null when the folder is not a git work tree (or git is missing, or it timed out). */
export async function readGitStatus(cwd: string): Promise<GitSnapshot> {
  try {
    // Background work (niceness 10): twenty of them scanning a big tree at once would otherwise take the cores from the daemon's own thread.
    const out = await execFileOffThread('git', ['status', '--porcelain', '--untracked-files=all'], { cwd, timeoutMs: GIT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT, niceness: GIT_NICENESS });
    return parsePorcelain(out);
  } catch {
    return null;
  }
}

export function parsePorcelain(out: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of out.split('\n')) if (line.length > 3) map.set(line.slice(3), line.slice(0, 2));
  return map;
}

/**
 * The work tree `cwd` is in: the nearest folder up holding `.git` (a
 * folder, or the file of a worktree or submodule), else `cwd` itself.
 * Porcelain paths are relative to the work tree's top whatever folder git
 * runs in, so every folder of one work tree can share one run.
 */
export async function workTreeOf(cwd: string): Promise<string> {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (await stat(join(dir, '.git')).then(() => true, () => false)) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export interface CoalescerOptions {
  /** The run a folder's snapshot is taken by (its work tree); resolved in the order snapshots are asked for. */
  keyOf?: (cwd: string) => string | Promise<string>;
  /** Runs at once over all work trees: each is a nice'd scan, but twenty at once still crowd the daemon off the cores. */
  concurrency?: number;
}

/**
 * At most one `git status` per work tree at a time, plus at most one
 * waiting: every request made while one runs shares the next run. Each
 * caller still gets a snapshot started after its request, so none sees a
 * tree older than the moment it asked about; twenty agents in one
 * repository cost two runs, not twenty piled up. Runs of different work
 * trees take turns, `concurrency` at a time.
 */
export class SnapshotCoalescer {
  private readonly folders = new Map<string, Folder>();
  private readonly limit: LimitFunction;
  private readonly keyOf: (cwd: string) => string | Promise<string>;
  /** Keys resolve one after another, so snapshots join runs in the order they were asked for. */
  private keys: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly take: (cwd: string) => Promise<GitSnapshot> = readGitStatus,
    options: CoalescerOptions = {},
  ) {
    this.keyOf = options.keyOf ?? workTreeOf;
    this.limit = pLimit(options.concurrency ?? availableParallelism());
  }

  /** A snapshot of `cwd` begun no earlier than this call. */
  snapshot(cwd: string): Promise<GitSnapshot> {
    const key = this.keys.then(() => this.keyOf(cwd)).then(
      (k) => this.join(k),
      () => this.join(resolve(cwd)),
    );
    // The run is wrapped so the chain of keys does not wait for it.
    this.keys = key;
    return key.then(({ run }) => run);
  }

  /** Work trees with a run going (for tests). */
  get busy(): number {
    return this.folders.size;
  }

  private join(key: string): { run: Promise<GitSnapshot> } {
    const f = this.folders.get(key);
    if (!f) return { run: this.start(key) };
    f.next ??= new Promise((done) => (f.startNext = () => done(this.start(key))));
    return { run: f.next };
  }

  private start(key: string): Promise<GitSnapshot> {
    const f: Folder = { running: this.limit(() => this.take(key)).catch(() => null) };
    this.folders.set(key, f);
    // The one reaction that hands the folder on runs before any caller resumes, so a caller asking again finds the new run.
    void f.running.then(() => (f.startNext ? f.startNext() : this.folders.delete(key)));
    return f.running;
  }
}

interface Folder {
  running: Promise<GitSnapshot>;
  next?: Promise<GitSnapshot>;
  startNext?: () => void;
}

const shared = new SnapshotCoalescer();

/** A snapshot of `cwd` begun now, shared with every other job of this process asking about the same work tree. */
export function gitSnapshot(cwd: string): Promise<GitSnapshot> {
  return shared.snapshot(cwd);
}

/** Paths whose status differs between two snapshots; null when either is unknown. */
export function changedPaths(before: GitSnapshot, after: GitSnapshot): string[] | null {
  if (!before || !after) return null;
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}
