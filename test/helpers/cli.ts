/**
 * Helpers for end-to-end tests of the built CLI (`bin/nightshift.js`, which
 * runs dist/): real processes, real PTYs, no fixed sleeps. Synchronisation
 * is by waiting for a line on stderr (or the process exit) with a deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobStory } from './job-story.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'nightshift.js');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const live = new Set<ChildProcess>();
const temps: string[] = [];

/** A fresh temporary directory, removed by cleanup(). */
export function tempDir(prefix = 'ns-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Kills (by pid, only processes these helpers started) whatever still runs, removes temp dirs. */
/**
 * Stops what a test left running, then removes its folders. A CLI still
 * running (a test that failed half-way) gets SIGTERM first: `nightshift run`
 * then stops its job's whole process tree; SIGKILL would leave the agent in
 * the PTY running (Gemini ignores the hang-up), eating the machine.
 */
export async function cleanup(): Promise<void> {
  const running = [...live].filter((c) => c.exitCode === null && c.signalCode === null);
  live.clear();
  await Promise.all(running.map((c) => stopGently(c, 8_000)));
  home = undefined;
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 });
}

/** SIGTERM, then SIGKILL if it is still there after `ms` (the CLI's stop ladder takes up to 6 s). */
function stopGently(child: ChildProcess, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The per-user home a test's processes see unless the test names one: a
 * private folder, so no test reads a developer's config.yaml or policy.yaml
 * or writes into their ~/.local/state.
 */
let home: string | undefined;
function testHome(): string {
  home ??= tempDir('ns-home-');
  return home;
}

function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: join(testHome(), 'state'), XDG_CONFIG_HOME: join(testHome(), 'config'), ...extra };
  // Tests decide the rules and state themselves; a developer's settings must not leak in.
  if (!('NIGHTSHIFT_RULES' in extra)) delete env.NIGHTSHIFT_RULES;
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
  return env;
}

export class CliProcess {
  readonly child: ChildProcess;
  readonly stderrLines: string[] = [];
  readonly started = Date.now();
  private out = '';
  private errRaw = '';
  private errTail = '';
  private readonly waiters = new Set<() => void>();
  readonly exit: Promise<Exit>;
  private exitInfo: Exit | undefined;

  /** `opts.exe`: another nightshift to run (an installed copy, found on PATH) instead of this clone's. */
  constructor(args: readonly string[], opts: CliOptions = {}) {
    this.child = spawn(opts.exe ?? process.execPath, opts.exe ? args : [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: childEnv(opts.env ?? {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    live.add(this.child);
    this.child.stdout!.setEncoding('utf8');
    this.child.stderr!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => {
      this.out += d;
      this.notify();
    });
    this.child.stderr!.on('data', (d: string) => {
      this.errRaw += d;
      const text = this.errTail + d;
      const parts = text.split('\n');
      this.errTail = parts.pop()!;
      this.stderrLines.push(...parts);
      this.notify();
    });
    // A write after the child is gone must not crash the test runner.
    this.child.stdin!.on('error', () => undefined);
    this.exit = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        if (this.errTail !== '') this.stderrLines.push(this.errTail);
        this.errTail = '';
        this.exitInfo = { code, signal };
        live.delete(this.child);
        this.notify();
        resolve(this.exitInfo);
      });
    });
  }

  get stdout(): string {
    return this.out;
  }

  /** Everything written to stderr, exactly. */
  get stderr(): string {
    return this.errRaw;
  }

  get exited(): Exit | undefined {
    return this.exitInfo;
  }

  /** Types into nightshift's stdin: what the person at the terminal does. */
  write(text: string): void {
    this.child.stdin!.write(text);
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves with the first stderr line (seen so far or later) that satisfies `pred`. */
  waitForLine(pred: (line: string) => boolean, ms: number, what: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.stderrLines.find(pred);
        if (hit !== undefined) return done(() => resolve(hit));
        if (this.exitInfo) return done(() => reject(new Error(`exited (${JSON.stringify(this.exitInfo)}) before ${what}; stderr:\n${this.stderr}`)));
        return undefined;
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${what} within ${ms} ms; stderr so far:\n${this.stderr}${this.story()}`))),
        ms,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        f();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Like waitForLine for --json output: the first JSON line satisfying `pred`. */
  async waitForJson(pred: (o: JsonLine) => boolean, ms: number, what: string): Promise<JsonLine> {
    const line = await this.waitForLine((l) => {
      const o = tryJson(l);
      return o !== undefined && pred(o);
    }, ms, what);
    return JSON.parse(line) as JsonLine;
  }

  /** What the job of a `run --json` did (its log and screen), for a failure message; empty before its `job` line. */
  story(): string {
    const intro = this.stderrLines.map(tryJson).find((o) => o?.type === 'job');
    return typeof intro?.dir === 'string' ? jobStory(intro.dir) : '';
  }

  /** The exit, or a rejection (and a kill) after `ms`. */
  async waitExit(ms: number): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`did not exit within ${ms} ms; stderr:\n${this.stderr}${this.story()}`));
      }, ms);
    });
    try {
      return await Promise.race([this.exit, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every stderr line parsed as JSON; throws naming the first line that is not. */
  jsonLines(): JsonLine[] {
    return this.stderrLines
      .filter((l) => l !== '')
      .map((l, i) => {
        try {
          return JSON.parse(l) as JsonLine;
        } catch {
          throw new Error(`stderr line ${i + 1} is not JSON: ${JSON.stringify(l)}`);
        }
      });
  }
}

/** One line of `run --json` stderr. */
export type JsonLine = {
  type: string;
  [k: string]: unknown;
};

function tryJson(line: string): JsonLine | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null ? (v as JsonLine) : undefined;
  } catch {
    return undefined;
  }
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  exe?: string;
}

export function startCli(args: readonly string[], opts: CliOptions = {}): CliProcess {
  return new CliProcess(args, opts);
}

/** Runs the CLI to completion (stdin closed); rejects after `ms`. */
export async function runCli(
  args: readonly string[],
  opts: CliOptions & { ms?: number } = {},
): Promise<Exit & { stdout: string; stderr: string; stderrLines: string[] }> {
  const p = new CliProcess(args, opts);
  p.child.stdin!.end();
  const exit = await p.waitExit(opts.ms ?? 20_000);
  return { ...exit, stdout: p.stdout, stderr: p.stderr, stderrLines: p.stderrLines.filter((l) => l !== '') };
}

/** The job folders (state/jobs/*) in a state directory. */
export function jobDirs(stateDir: string): string[] {
  try {
    return readdirSync(join(stateDir, 'jobs')).map((n) => join(stateDir, 'jobs', n));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** A JSONL file as objects; a file never written counts as empty. */
export function readJsonl(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
