/**
 * A fleet for end-to-end tests: one private PostgreSQL cluster per test
 * file (pg-cluster.ts), one database per test, and daemons started as
 * hosts of it, each with its own state directory (daemon.ts Scope).
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { JobRecord } from '../../src/board/types.js';
import { runCli } from './cli.js';
import { waitUntil, type CliResult, type DaemonProc, type PageServer, type Scope } from './daemon.js';
import { PgCluster } from '../../bench/lib/pg-cluster.js';

export type FleetRecord = JobRecord & { host: string | null };

/** The cluster for this file: started before its tests, stopped after. */
export function fleetCluster(): () => PgCluster {
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    cluster = await PgCluster.start();
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);
  return () => cluster!;
}

/** Every nightshift process of a fleet test: nothing of the developer's environment leaks in. */
const ENV = { NIGHTSHIFT_STATE: undefined, NIGHTSHIFT_BOARD: undefined, NIGHTSHIFT_RULES: undefined, NIGHTSHIFT_USER: undefined };

export class Fleet {
  readonly hosts = new Map<string, DaemonProc>();
  /** Jobs append a line here per run: a job run twice shows two. */
  readonly runs: string;

  constructor(
    readonly scope: Scope,
    readonly url: string,
    readonly pages: PageServer | null,
  ) {
    this.runs = join(scope.tempDir('ns-fleet-runs-'), 'runs');
    mkdirSync(this.runs);
  }

  static async create(scope: Scope, cluster: PgCluster, opts: { pages?: boolean } = {}): Promise<Fleet> {
    return new Fleet(scope, await cluster.database(), opts.pages ? await scope.server() : null);
  }

  /** A config.yaml paging the test's receiver (every host pages the same one). */
  private config(): string | undefined {
    if (!this.pages) return undefined;
    return ['notify:', '  notifiers:', `    - { kind: webhook, name: hook, url: "${this.pages.url('/hook')}" }`, ''].join('\n');
  }

  /** Starts `nightshift daemon --board URL --host NAME` on a fresh state directory (or `state`). */
  async host(name: string, args: readonly string[] = [], state?: string): Promise<DaemonProc> {
    const dir = state ?? this.scope.stateDir(this.config());
    const d = await this.scope.daemon(dir, ['--board', this.url, '--host', name, ...args], ENV);
    this.hosts.set(name, d);
    return d;
  }

  /** `nightshift VERB --board URL ARGS…` from no host in particular. */
  ns(verb: string, args: readonly string[] = [], env: Record<string, string | undefined> = {}): Promise<CliResult> {
    return runCli([verb, '--board', this.url, ...args], { env: { ...ENV, ...env }, ms: 30_000 }) as Promise<CliResult>;
  }

  async submit(name: string, command: readonly string[], opts: readonly string[] = []): Promise<FleetRecord> {
    const r = await this.ns('submit', ['--name', name, '--json', ...opts, '--', ...command]);
    if (r.code !== 0) throw new Error(`submit ${name} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as FleetRecord;
  }

  /** A job that records each run of itself (a line in runs/NAME), then sleeps `secs`. */
  recordingJob(name: string, secs: number): string[] {
    return ['sh', '-c', `echo run >> "${this.runs}/$0"; sleep ${secs}`, name];
  }

  /** How many times each job ran (lines in its runs file). */
  runCounts(): Map<string, number> {
    return new Map(readdirSync(this.runs).map((f) => [f, readFileSync(join(this.runs, f), 'utf8').split('\n').filter(Boolean).length]));
  }

  /** The board through the database directly (no CLI process per poll). */
  async jobs(): Promise<FleetRecord[]> {
    const rows = await this.sql<{ record: JobRecord; host: string | null }>('SELECT record, host FROM fleet_jobs ORDER BY seq');
    return rows.map((r) => ({ ...r.record, host: r.host }));
  }

  async sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const c = new pg.Client({ connectionString: this.url });
    await c.connect();
    try {
      return (await c.query<R>(text, values)).rows;
    } finally {
      await c.end();
    }
  }

  async describe(): Promise<string> {
    const jobs = await this.jobs().catch(() => []);
    return `fleet: ${jobs.map((j) => `${j.name}@${j.host ?? '-'}=${j.state}/${j.reason.code}`).join(', ')}`;
  }

  waitJob(name: string, pred: (j: FleetRecord) => boolean, ms: number, what = 'a condition'): Promise<FleetRecord> {
    return waitUntil(
      async () => {
        const j = (await this.jobs().catch(() => [])).find((x) => x.name === name);
        return j && pred(j) ? j : undefined;
      },
      ms,
      `job ${name}: ${what}`,
      { describe: () => this.describe() },
    );
  }

  waitAll(pred: (jobs: FleetRecord[]) => boolean, ms: number, what: string): Promise<FleetRecord[]> {
    return waitUntil(
      async () => {
        const jobs = await this.jobs().catch(() => []);
        return pred(jobs) ? jobs : undefined;
      },
      ms,
      what,
      { describe: () => this.describe() },
    );
  }

  /** Pages the receiver got, parsed. */
  pagesGot(): Array<{ key: string; kind: string; name: string; reason: string }> {
    return (this.pages?.on('/hook') ?? []).map((h) => JSON.parse(h.body) as { key: string; kind: string; name: string; reason: string });
  }
}
