/**
 * A fleet on this machine: a private PostgreSQL cluster (initdb, pg_ctl),
 * three daemons as three hosts with 100 slots each, and 300 jobs queued at
 * once on the fleet board (smoke: 3 × 5). Each job prints, sleeps 2 s and
 * exits. Measured:
 *   - claim latency: queued on the board → a host claimed it (claimed_at,
 *     the database's clock) and → it was running on the board;
 *   - transitions per second the board took in, over the busiest 10 s;
 *   - the database server's CPU (postmaster and every backend, /proc) over
 *     the run, as a share of one core;
 *   - a command row's round trip: inserted for host h2, run there, replied;
 *   - every job done once (one `running` transition each).
 * No anchor: one database and one machine have nothing to race against;
 * the README says how far one PostgreSQL carries.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FleetDb } from '../../src/fleet/db.js';
import { pushFromHost, submitJob } from '../../src/fleet/jobs.js';
import { runOnHost } from '../../src/fleet/commands.js';
import type { JobRecord } from '../../src/board/types.js';
import { Daemon } from '../lib/daemon.js';
import { PgCluster } from '../lib/pg-cluster.js';
import { cpuSeconds, HZ } from '../lib/proc.js';
import { max, percentile, sleep } from '../lib/stats.js';
import { logger, row, type CaseOptions, type CaseResult } from '../lib/types.js';

const HOSTS = ['h1', 'h2', 'h3'];

/** CPU seconds of the cluster: the postmaster (with the backends it reaped) and every backend alive now. */
function clusterCpu(postmaster: number): number {
  const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  const f = stat(postmaster);
  let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const s = stat(Number(p));
      if (Number(s[1]) === postmaster) ticks += Number(s[11]) + Number(s[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / HZ;
}

/** CPU of the daemons (each) and the database while nothing happens but the links' cycles: heartbeats, polls, sweeps. */
async function idleCost(daemons: Daemon[], postmaster: number, ms: number): Promise<{ daemonPct: number; dbPct: number }> {
  await sleep(3_000);
  const d0 = daemons.map((d) => cpuSeconds(d.pid));
  const db0 = clusterCpu(postmaster);
  await sleep(ms);
  const per = daemons.map((d, i) => cpuSeconds(d.pid) - d0[i]!);
  return { daemonPct: (per.reduce((a, b) => a + b, 0) / per.length / (ms / 1000)) * 100, dbPct: ((clusterCpu(postmaster) - db0) / (ms / 1000)) * 100 };
}

/** A command row to host h2 and its reply (what `answer --board` does), one after another: ms each. */
async function commandRoundTrips(db: FleetDb, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await runOnHost(db, 'h2', null, 'board', {});
    out.push(performance.now() - t0);
    await sleep(100);
  }
  return out;
}

/**
 * What the board can take in: three sources (as three hosts' links would
 * after an outage) each flushing batches of 500 transitions with their
 * job records, as fast as the database answers.
 */
async function flushCapacity(db: FleetDb, postmaster: number, smoke: boolean): Promise<{ perSecond: number; cpuPct: number; rows: number }> {
  const batches = smoke ? 2 : 20;
  const jobs = await db.query<{ record: JobRecord }>('SELECT record FROM fleet_jobs ORDER BY seq LIMIT 100');
  const cpu0 = clusterCpu(postmaster);
  const t0 = performance.now();
  await Promise.all(
    HOSTS.map(async (h) => {
      for (let b = 0; b < batches; b++) {
        const ts = Array.from({ length: 500 }, (_, i) => {
          const rec = jobs[i % jobs.length]!.record;
          return { seq: b * 500 + i + 1, job: rec.id, time: new Date().toISOString(), state: 'running' as const, reason: { code: 'bench' } };
        });
        await pushFromHost(db, h, `${h}/bench`, ts, []);
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  const rows = HOSTS.length * batches * 500;
  return { perSecond: rows / s, cpuPct: ((clusterCpu(postmaster) - cpu0) / s) * 100, rows };
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const perHost = opts.smoke ? 5 : 100;
  const total = perHost * HOSTS.length;
  const cluster = await PgCluster.start();
  const dirs = mkdtempSync(path.join(tmpdir(), 'ns-bench-fleet-'));
  const daemons: Daemon[] = [];
  try {
    const url = await cluster.database('bench');
    for (const h of HOSTS) daemons.push(await Daemon.start(opts.root, path.join(dirs, h), ['--board', url, '--host', h, '--max-running', String(perHost)]));
    const db = FleetDb.open(url, { max: 4 });
    const postmaster = (await cluster.serverPids())[0]!;
    const cpu0 = clusterCpu(postmaster);
    const t0 = Date.now();
    log(`submitting ${total} jobs to ${HOSTS.length} hosts`);
    for (let i = 0; i < total; i++) {
      await submitJob(db, { name: `j${i}`, command: ['sh', '-c', 'echo start; sleep 2; echo end'], cwd: dirs, env: {}, budgets: {}, priority: 0, after: [] }, Date.now(), null);
    }
    await db.query(`SELECT pg_notify('nightshift_jobs', '')`);
    const deadline = Date.now() + (opts.smoke ? 60_000 : 240_000);
    for (;;) {
      const [r] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM fleet_jobs WHERE state = 'done'`);
      if (r!.n === total) break;
      if (Date.now() > deadline) throw new Error(`only ${r!.n} of ${total} jobs done in time`);
      await sleep(500);
    }
    const wall = (Date.now() - t0) / 1000;
    const cpu = clusterCpu(postmaster) - cpu0;
    const jobs = await db.query<{ created: string; claimed: Date; started: string; host: string; runs: number; state: string; code: string }>(
      `SELECT record->>'created' AS created, claimed_at AS claimed, record->>'started' AS started, host, state, record->'reason'->>'code' AS code,
         (SELECT count(*)::int FROM fleet_transitions t WHERE t.job = j.id AND t.state = 'running') AS runs
       FROM fleet_jobs j`,
    );
    const claimMs = jobs.map((j) => j.claimed.getTime() - Date.parse(j.created));
    const startMs = jobs.map((j) => Date.parse(j.started) - Date.parse(j.created));
    const perSecond = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM fleet_transitions GROUP BY date_trunc('second', time::timestamptz) ORDER BY n DESC`,
    );
    const busiest10 = perSecond.slice(0, 10).reduce((s, r) => s + r.n, 0) / Math.min(10, perSecond.length);
    const [tr] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM fleet_transitions`);
    const once = jobs.every((j) => j.runs === 1 && j.state === 'done' && j.code === 'exit');
    const byHost = Object.fromEntries(HOSTS.map((h) => [h, jobs.filter((j) => j.host === h).length]));
    const idle = await idleCost(daemons, postmaster, opts.smoke ? 3_000 : 20_000);
    const roundTrips = await commandRoundTrips(db, opts.smoke ? 5 : 20);
    const capacity = await flushCapacity(db, postmaster, opts.smoke);
    await db.close();
    log(`flush capacity ${capacity.perSecond.toFixed(0)} transitions/s at ${capacity.cpuPct.toFixed(0)} % of a core`);
    log(`claim p50 ${percentile(claimMs, 50)} ms p99 ${percentile(claimMs, 99)} ms; ${busiest10.toFixed(0)} transitions/s; db ${((cpu / wall) * 100).toFixed(1)} % of a core; ${JSON.stringify(byHost)}`);
    return {
      case: 'fleet',
      rows: [
        row(`fleet: claim latency p50 (${HOSTS.length} hosts × ${perHost} jobs)`, percentile(claimMs, 50), 'ms', { goal: '< 1000 ms', pass: percentile(claimMs, 50) < 1000 }),
        row('fleet: claim latency p99', percentile(claimMs, 99), 'ms', { goal: 'context' }),
        row('fleet: queued → running p50', percentile(startMs, 50), 'ms', { goal: 'context' }),
        row('fleet: command row → owning host → reply, median', percentile(roundTrips, 50), 'ms', { goal: '< 1000 ms', pass: percentile(roundTrips, 50) < 1000 }),
        row('fleet: command row round trip, max', max(roundTrips), 'ms', { goal: '< 1000 ms', pass: max(roundTrips) < 1000 }),
        row('fleet: transitions/s taken in (busiest 10 s)', busiest10, '/s', { goal: 'context' }),
        row('fleet: database CPU over the run', (cpu / wall) * 100, '% of a core', { goal: 'context' }),
        row('fleet: idle daemon CPU per host (300 jobs done, links cycling)', idle.daemonPct, '% of a core', { goal: 'context' }),
        row('fleet: idle database CPU (3 hosts)', idle.dbPct, '% of a core', { goal: 'context' }),
        row('fleet: flush capacity (3 hosts pushing 500-transition batches)', capacity.perSecond, '/s', { goal: 'context' }),
        row('fleet: database CPU while at flush capacity', capacity.cpuPct, '% of a core', { goal: 'context' }),
        row(`fleet: every job ran once (${total})`, once ? 1 : 0, 'bool', { goal: 'all', pass: once }),
      ],
      details: { idle, flush: capacity, hosts: HOSTS.length, per_host: perHost, wall_s: wall, db_cpu_s: cpu, transitions: tr!.n, by_host: byHost, claim_ms_max: max(claimMs), start_ms_p99: percentile(startMs, 99) },
    };
  } finally {
    await Promise.all(daemons.map((d) => d.stop().catch(() => undefined)));
    await cluster.close();
    rmSync(dirs, { recursive: true, force: true });
  }
}
