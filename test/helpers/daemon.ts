/**
 * Helpers for end-to-end tests of `nightshift daemon` and the verbs that
 * talk to it. Every test gets a Scope: its own temporary folders, its own
 * daemons (one state directory each, so its own socket and lock) and its
 * own HTTP receivers, all torn down by `scope.close()` from afterEach —
 * daemons with SIGTERM, SIGTERM again, then SIGKILL.
 *
 * Synchronisation is by polling the board with a deadline, never by fixed
 * sleeps. Polling goes over the daemon's control socket in-process (the
 * very request `nightshift board --json` makes): a CLI process costs
 * ~0.5 s of CPU to start, which on a 2-core machine would disturb the
 * timing of the jobs under test. Assertions about CLI output use the CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, type TestContext } from 'vitest';
import type { JobRecord, TransitionRecord } from '../../src/board/types.js';
import { call } from '../../src/daemon/client.js';
import { cleanup, runCli, startCli, type CliProcess, type Exit } from './cli.js';
import { ptyhostPid } from './board-file.js';
import { PageServer } from './page-server.js';
import { processAlive, waitUntil } from './wait.js';

export * from './board-file.js';
export * from './page-server.js';
export * from './wait.js';

/** Short watchdog thresholds: a quiet second is an inspection, two still seconds are a hang. */
export const FAST = ['--screen-quiet', '1s', '--tool-gap', '2s', '--settle', '1s', '--tick', '200ms'] as const;

/** The environment every nightshift process of these tests gets: nothing of the developer's leaks in. */
const BASE_ENV: Record<string, string | undefined> = { NIGHTSHIFT_STATE: undefined, NIGHTSHIFT_RULES: undefined, NIGHTSHIFT_USER: undefined };

export type CliResult = Exit & { stdout: string; stderr: string; stderrLines: string[] };

export interface Shown {
  job: JobRecord;
  transitions: TransitionRecord[];
  signals: Record<string, unknown> | null;
  screen: string | null;
  evidence: Record<string, unknown>[];
  pages: OutboxRowJson[];
}

export interface OutboxRowJson {
  id: number;
  key: string;
  job: string;
  notifier: string;
  page: Record<string, unknown> & { kind: string; reason: string; name: string };
  status: string;
  round: number;
  attempts: number;
  last_error: string | null;
  delivered_at: number | null;
}

/** `state/reason` of a record or transition, for readable expectations. */
export const sr = (r: { state: string; reason: { code: string } }): string => `${r.state}/${r.reason.code}`;


/** One `nightshift daemon` process on one state directory. */
export class DaemonProc {
  constructor(
    readonly state: string,
    readonly proc: CliProcess,
    readonly pid: number,
    private readonly env: Record<string, string | undefined>,
    /** Another nightshift (an installed copy) than this clone's, for the daemon and its verbs. */
    private readonly exe?: string,
  ) {}

  /** The web view's base URL, from the start line, when the daemon runs with --http. */
  web: string | null = null;

  get socket(): string {
    return join(this.state, 'run', 'nightshift.sock');
  }

  get lock(): string {
    return join(this.state, 'run', 'daemon.lock');
  }

  /** Runs a verb against this daemon: `nightshift VERB --state DIR ARGS…`. */
  ns(verb: string, args: readonly string[] = [], env: Record<string, string | undefined> = {}): Promise<CliResult> {
    return runCli([verb, '--state', this.state, ...args], { env: { ...BASE_ENV, ...this.env, ...env }, exe: this.exe, ms: 20_000 });
  }

  /** `nightshift submit --state DIR --name NAME [opts] -- CMD…`; throws unless it exits 0. */
  async submit(name: string, command: readonly string[], opts: readonly string[] = []): Promise<JobRecord> {
    const r = await this.ns('submit', ['--name', name, '--json', ...opts, '--', ...command]);
    if (r.code !== 0) throw new Error(`submit ${name} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as JobRecord;
  }

  /** The board over the control socket (what `board --json` prints, without a CLI process). */
  async jobs(): Promise<JobRecord[]> {
    return ((await call(this.state, 'board')) as { jobs: JobRecord[] }).jobs;
  }

  /** `nightshift board --json` through the CLI. */
  async boardCli(): Promise<JobRecord[]> {
    const r = await this.ns('board', ['--json']);
    if (r.code !== 0) throw new Error(`board --json exited ${r.code}: ${r.stderr}`);
    const doc = JSON.parse(r.stdout) as { jobs: JobRecord[] };
    return doc.jobs;
  }

  /** `show JOB --json` over the control socket. */
  async show(job: string): Promise<Shown> {
    return (await call(this.state, 'show', { job })) as Shown;
  }

  /** `nightshift show JOB --json` through the CLI. */
  async showCli(job: string): Promise<Shown> {
    const r = await this.ns('show', [job, '--json']);
    if (r.code !== 0) throw new Error(`show ${job} --json exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Shown;
  }

  async describeBoard(): Promise<string> {
    const jobs = await this.jobs();
    return `board: ${jobs.map((j) => `${j.name}=${sr(j)}`).join(', ')}`;
  }

  /** Polls the board until job `name` satisfies `pred`; returns its record. */
  waitJob(name: string, pred: (j: JobRecord) => boolean, ms: number, what = 'a condition'): Promise<JobRecord> {
    return waitUntil(
      async () => {
        const j = (await this.jobs()).find((x) => x.name === name);
        return j && pred(j) ? j : undefined;
      },
      ms,
      `job ${name}: ${what}`,
      { describe: () => this.describeBoard() },
    );
  }

  /** Polls until job `name` is in `state` (and, if given, has reason `code`). */
  waitState(name: string, state: string, code: string | undefined, ms: number): Promise<JobRecord> {
    return this.waitJob(name, (j) => j.state === state && (code === undefined || j.reason.code === code), ms, `${state}/${code ?? '*'}`);
  }

  /**
   * Polls until job `name` is live inside the daemon: `show` reports its
   * signals. The board says `running/started` a little earlier, while the
   * daemon is still wiring the job up (see the start-up tests).
   */
  waitLive(name: string, ms: number): Promise<Shown> {
    return waitUntil(
      async () => {
        const s = await this.show(name);
        return s.signals !== null ? s : undefined;
      },
      ms,
      `job ${name} live in the daemon`,
      { describe: () => this.describeBoard() },
    );
  }

  /** The pid of the PTY host serving this state directory (its lock file), or null when none runs. */
  hostPid(): number | null {
    return ptyhostPid(this.state);
  }

  /** Sends a signal to the daemon (by its pid). */
  signal(sig: NodeJS.Signals): void {
    if (!this.proc.exited) this.proc.child.kill(sig);
  }

  /** SIGTERM (drain), SIGTERM (stop jobs), then SIGKILL: whatever it takes, with deadlines. */
  async stop(): Promise<void> {
    if (this.proc.exited) return;
    for (const [sig, ms] of [['SIGTERM', 2_000], ['SIGTERM', 8_000], ['SIGKILL', 5_000]] as const) {
      this.signal(sig);
      const exited = await Promise.race([this.proc.exit.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), ms))]);
      if (exited) return;
    }
  }
}

/** kill -9 of the daemon and then of its PTY host: a power cut or a reboot, after which no job's terminal is left. */
export async function powerCut(d: DaemonProc): Promise<void> {
  const host = d.hostPid();
  d.signal('SIGKILL');
  await d.proc.waitExit(5_000);
  if (host !== null) process.kill(host, 'SIGKILL');
}

/** What one test owns; closed in afterEach. */
export class Scope {
  private readonly dirs: string[] = [];
  private readonly daemons: DaemonProc[] = [];
  private readonly servers: PageServer[] = [];

  tempDir(prefix = 'ns-daemon-e2e-'): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }

  /** A fresh state directory, optionally with a config.yaml written before any daemon starts. */
  stateDir(config?: string): string {
    const state = this.tempDir('ns-state-');
    if (config !== undefined) writeFileSync(join(state, 'config.yaml'), config);
    return state;
  }

  async server(port = 0): Promise<PageServer> {
    const s = await new PageServer().start(port);
    this.servers.push(s);
    return s;
  }

  /** Starts `nightshift daemon --state DIR FAST… ARGS…` and waits for its start line. */
  async daemon(state: string, args: readonly string[] = [], env: Record<string, string | undefined> = {}, exe?: string): Promise<DaemonProc> {
    const allEnv = { ...BASE_ENV, ...env };
    const proc = startCli(['daemon', '--state', state, ...FAST, ...args], { env: allEnv, exe });
    const d = new DaemonProc(state, proc, proc.child.pid!, allEnv, exe);
    this.daemons.push(d);
    const line = await proc.waitForLine((l) => l.startsWith('nightshift daemon: pid '), 15_000, 'the daemon start line');
    d.web = /, web (https?:\/\/[^\s,]+)/.exec(line)?.[1] ?? null;
    return d;
  }

  async close(): Promise<void> {
    await Promise.all(this.daemons.splice(0).map((d) => d.stop()));
    // Jobs outlive a killed daemon in their PTY host: the host's SIGTERM hangs them up.
    const hosts: number[] = [];
    for (const d of this.dirs) {
      const pid = ptyhostPid(d);
      if (pid !== null && processAlive(pid)) {
        process.kill(pid, 'SIGTERM');
        hosts.push(pid);
      }
    }
    await Promise.all(this.servers.splice(0).map((s) => s.stop()));
    // A host finishing its recordings (exit markers) while the folder is removed makes rmdir fail with ENOTEMPTY: let it end first.
    await waitUntil(() => hosts.every((pid) => !processAlive(pid)), 10_000, 'the PTY hosts to exit').catch(() => hosts.forEach((pid) => processAlive(pid) && process.kill(pid, 'SIGKILL')));
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 });
  }
}

/**
 * For a test file: registers the teardown (each test's Scope in afterEach,
 * the CLI helpers' leftovers in afterAll) and returns `scope(ctx)`, which
 * gives a test its own Scope.
 */
export function testScopes(): (ctx: TestContext) => Scope {
  const scopes = new Map<string, Scope>();
  afterEach(async (ctx) => {
    const s = scopes.get(ctx.task.id);
    scopes.delete(ctx.task.id);
    await s?.close();
  });
  afterAll(cleanup);
  return (ctx) => {
    const s = new Scope();
    scopes.set(ctx.task.id, s);
    return s;
  };
}

/** A job spec as `nightshift submit` sends it over the socket. */
export function rawSpec(name: string, command: string[], cwd: string) {
  return {
    name,
    command,
    cwd,
    env: {},
    policy: null,
    rules: null,
    budgets: { wall_ms: null, tokens: null, no_progress_ms: null },
    priority: 0,
    after: [],
  };
}


/** A CLI failure as the README promises: exit 2, one `nightshift:` line, no stack, nothing on stdout. */
export function expectInputError(r: { code: number | null; stdout: string; stderrLines: string[] }, pattern: RegExp): void {
  expect(r.code, r.stderrLines.join('\n')).toBe(2);
  expect(r.stderrLines).toHaveLength(1);
  expect(r.stderrLines[0]).toMatch(/^nightshift: /);
  expect(r.stderrLines[0]).toMatch(pattern);
  expect(r.stdout).toBe('');
}
