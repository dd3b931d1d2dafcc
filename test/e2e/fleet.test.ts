/**
 * Three daemons as three hosts of one fleet board in a real PostgreSQL
 * (a private cluster, tests/helpers/pg-cluster.ts): jobs spread and run
 * once, a pinned job is answered from anywhere and paged once, a killed
 * host is reported lost, and a database outage loses nothing.
 */
import { describe, expect, it } from 'vitest';
import { sr, testScopes, waitUntil, type DaemonProc } from '../helpers/daemon.js';
import { Fleet, fleetCluster } from '../helpers/fleet.js';

const scope = testScopes();
const cluster = fleetCluster();

/** Keys paged more than once. */
const duplicates = (keys: string[]): string[] => keys.filter((k, i) => keys.indexOf(k) !== i);

describe('a fleet on PostgreSQL', () => {
  it('runs 30 jobs submitted concurrently from three hosts\' CLIs, each exactly once, spread over the hosts', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster());
    for (const h of ['a', 'b', 'c']) await fleet.host(h, ['--max-running', '3']);
    const lanes = ['a', 'b', 'c'].map(async (lane) => {
      for (let i = 0; i < 10; i++) {
        const name = `${lane}${i}`;
        const r = await fleet.ns('submit', ['--name', name, '--', ...fleet.recordingJob(name, 1)]);
        expect(r.code, r.stderr).toBe(0);
      }
    });
    await Promise.all(lanes);
    const jobs = await fleet.waitAll((js) => js.length === 30 && js.every((j) => j.state === 'done'), 90_000, '30 jobs done');
    expect(jobs.map(sr).filter((s) => s !== 'done/exit')).toEqual([]);
    const counts = fleet.runCounts();
    expect(counts.size).toBe(30);
    expect([...counts.values()].every((n) => n === 1), JSON.stringify([...counts])).toBe(true);
    // One start each: a `running` after `queued`, whatever else the job did.
    const moves = await fleet.sql<{ job: string; moves: string }>(
      `SELECT job, string_agg(state || '/' || (reason->>'code'), ' ' ORDER BY time, seq) AS moves FROM fleet_transitions GROUP BY job`,
    );
    expect(moves.length).toBe(30);
    expect(moves.filter((m) => (m.moves.match(/running\/started/g) ?? []).length !== 1)).toEqual([]);
    const byHost = new Set(jobs.map((j) => j.host));
    expect([...byHost].sort()).toEqual(['a', 'b', 'c']);
    const board = await fleet.ns('board', ['--json']);
    expect(board.code).toBe(0);
    const rows = (JSON.parse(board.stdout) as { jobs: Array<{ name: string; host: string }> }).jobs;
    expect(rows.length).toBe(30);
    expect(rows.every((r) => ['a', 'b', 'c'].includes(r.host))).toBe(true);
    const hosts = JSON.parse((await fleet.ns('hosts', ['--json'])).stdout) as { hosts: Array<{ name: string; state: string; max_running: number }> };
    expect(hosts.hosts.map((h) => `${h.name}:${h.state}:${h.max_running}`)).toEqual(['a:up:3', 'b:up:3', 'c:up:3']);
    // stats asks each job's host for its evidence: every host answered.
    const stats = await fleet.ns('stats', ['--json']);
    expect([stats.code, stats.stderr]).toEqual([0, '']);
    expect(JSON.parse(stats.stdout)).toMatchObject({ jobs: 30, verdicts: 0 });
  }, 150_000);

  it('pages a job blocked on one host once, and takes its answer from another host\'s CLI', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster(), { pages: true });
    await fleet.host('a');
    await fleet.host('b');
    const ask = ['sh', '-c', 'read -p "Delete all files? (y/n) " a; echo "got $a"; sleep 1'];
    await fleet.submit('pin', ask, ['--host', 'b']);
    const blocked = await fleet.waitJob('pin', (j) => j.state === 'blocked', 30_000, 'blocked');
    expect(blocked.host).toBe('b');
    await fleet.pages!.waitHits('/hook', 1, 20_000);
    const shown = await fleet.ns('show', ['pin', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const view = JSON.parse(shown.stdout) as { job: { host: string }; screen: string; prompt: unknown };
    expect(view.job.host).toBe('b');
    expect(view.screen).toContain('Delete all files?');
    const human = await fleet.ns('show', ['pin']);
    expect(human.stdout.split('\n')).toContain('  host:     b');
    expect(human.stdout).toMatch(/ {2}files: {4}\S+ on b\n/);
    // From host a's side: its CLI, no socket of b's.
    const r = await fleet.ns('answer', ['pin', 'y'], { NIGHTSHIFT_USER: 'alice' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/answered pin: \["y","enter"\] as human:alice/);
    const done = await fleet.waitJob('pin', (j) => j.state === 'done', 20_000, 'done');
    expect(sr(done)).toBe('done/exit');
    // Both hosts send from the shared outbox: wait past several ticks of each, then count.
    await new Promise((res) => setTimeout(res, 3_000));
    const keys = fleet.pagesGot().map((p) => p.key);
    expect(keys.filter((k) => k.startsWith(blocked.id)).length).toBe(1);
    expect(duplicates(keys)).toEqual([]);
    const outbox = await fleet.sql<{ status: string }>(`SELECT status FROM fleet_outbox WHERE job = $1`, [blocked.id]);
    expect(outbox.map((o) => o.status)).toEqual(['resolved']);
  }, 90_000);

  it('reports a host killed with -9 lost within 30 s, ends its jobs done/lost-host and pages once', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster(), { pages: true });
    await fleet.host('a');
    await fleet.host('b');
    const c = await fleet.host('c');
    await fleet.submit('long', ['sh', '-c', 'while true; do echo tick; sleep 0.5; done'], ['--host', 'c']);
    await fleet.waitJob('long', (j) => j.state === 'running', 30_000, 'running on c');
    c.signal('SIGKILL');
    const killed = Date.now();
    await waitUntil(
      async () => {
        const r = await fleet.ns('hosts', ['--json']);
        const c = (JSON.parse(r.stdout) as { hosts: Array<{ name: string; state: string }> }).hosts.find((h) => h.name === 'c');
        return c?.state === 'lost';
      },
      45_000,
      'host c lost',
    );
    const job = await fleet.waitJob('long', (j) => j.state === 'done', 15_000, 'done/lost-host');
    expect(sr(job)).toBe('done/lost-host');
    // When the fleet declared it (the database's clock, this machine's): 30 s of silence from its
    // last heartbeat (at most 2 s before the kill), then the next sweep (every second).
    const { lost_at } = (await fleet.sql<{ lost_at: Date }>(`SELECT lost_at FROM fleet_hosts WHERE name = 'c'`))[0]!;
    const { silent } = (await fleet.sql<{ silent: number }>(`SELECT extract(epoch FROM lost_at - last_seen)::float AS silent FROM fleet_hosts WHERE name = 'c'`))[0]!;
    expect(silent).toBeGreaterThanOrEqual(30);
    expect(lost_at.getTime() - killed).toBeLessThanOrEqual(33_000);
    await fleet.pages!.waitHits('/hook', 1, 10_000);
    await new Promise((res) => setTimeout(res, 4_000));
    const lost = fleet.pagesGot().filter((p) => p.kind === 'lost' && p.name === 'c');
    expect(lost.length).toBe(1);
    expect(duplicates(fleet.pagesGot().map((p) => p.key))).toEqual([]);
  }, 120_000);

  it('keeps supervising through a 30 s database outage, then flushes every move and page once, in order', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster(), { pages: true });
    await outageDrill(fleet, 30_000, {
      away: () => cluster().stopServer(),
      back: () => cluster().startServer(),
      during: async () => {
        const r = await fleet.ns('board');
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^nightshift: cannot reach the fleet board at postgres:\/\/nightshift@127\.0\.0\.1:\d+\/\w+: ECONNREFUSED$/)]);
      },
    });
  }, 150_000);

  it('keeps supervising through a 40 s hung database (every server process stopped), answers its own CLI at once, then flushes once; nobody is lost', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster(), { pages: true });
    let frozen: number[] = [];
    await outageDrill(fleet, 40_000, {
      away: async () => void (frozen = await cluster().freeze()),
      back: async () => cluster().thaw(frozen),
      during: async (a) => {
        // The daemon does not wait on a database that does not answer (its queries time out after 15 s).
        const asked = Date.now();
        expect((await a.show('finisher')).job.state).toBe('done');
        expect(Date.now() - asked).toBeLessThan(5_000);
      },
    });
  }, 180_000);

  it('starts with the database down, runs a job submitted to its own socket, and puts it on the board once the database is up', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster());
    await cluster().stopServer();
    try {
      const a = await fleet.host('a');
      expect(a.proc.stderrLines.find((l) => l.startsWith('nightshift daemon: pid '))).toMatch(/, fleet postgres:\/\/nightshift@127\.0\.0\.1:\d+\/\w+ as host a \(board unreachable: journaling locally\)$/);
      await a.submit('local', ['sh', '-c', 'echo here; exit 0']);
      await a.waitState('local', 'done', 'exit', 20_000);
    } finally {
      await cluster().startServer();
    }
    const job = await fleet.waitJob('local', (j) => j.state === 'done', 20_000, 'on the fleet board');
    expect([job.host, sr(job)]).toEqual(['a', 'done/exit']);
    const moves = await fleet.sql<{ state: string }>(`SELECT state FROM fleet_transitions WHERE job = $1 ORDER BY time, seq`, [job.id]);
    expect(moves.map((m) => m.state)).toEqual(['queued', 'running', 'done']);
  }, 90_000);

  it('a host that was frozen past 30 s (a laptop asleep) is lost, then up again; its job stays done/lost-host and its later moves join the log', async (ctx) => {
    const fleet = await Fleet.create(scope(ctx), cluster(), { pages: true });
    await fleet.host('a');
    const c = await fleet.host('c');
    await fleet.submit('nap', ['sh', '-c', 'for i in $(seq 1 120); do echo tick $i; sleep 0.5; done'], ['--host', 'c']);
    const running = await fleet.waitJob('nap', (j) => j.state === 'running', 30_000, 'running on c');
    c.signal('SIGSTOP');
    try {
      await fleet.waitJob('nap', (j) => j.state === 'done', 45_000, 'done/lost-host while c sleeps');
    } finally {
      c.signal('SIGCONT');
    }
    await waitUntil(
      async () => {
        const r = await fleet.ns('hosts', ['--json']);
        return (JSON.parse(r.stdout) as { hosts: Array<{ name: string; state: string }> }).hosts.find((h) => h.name === 'c')?.state === 'up';
      },
      20_000,
      'host c up again',
    );
    // c still supervises the job; when it ends there, the move joins the log and the verdict stays.
    await c.waitState('nap', 'done', 'exit', 80_000);
    await waitUntil(
      async () => (await fleet.sql(`SELECT 1 FROM fleet_transitions WHERE job = $1 AND state = 'done' AND reason->>'code' = 'exit'`, [running.id])).length === 1,
      10_000,
      'the late exit in the fleet log',
    );
    expect(sr(await fleet.waitJob('nap', () => true, 1_000))).toBe('done/lost-host');
    expect(fleet.pagesGot().filter((p) => p.kind === 'lost').map((p) => p.name)).toEqual(['c']);
  }, 180_000);
});

/**
 * Two hosts, a job on each; the database goes away for `ms` (`away`, then
 * `back`) while one job ends and the other blocks. Every move and the page
 * must reach the fleet once, in order, nobody may be lost for it, and the
 * blocked job must take an answer from the fleet CLI afterwards.
 */
async function outageDrill(fleet: Fleet, ms: number, o: { away: () => Promise<void>; back: () => Promise<void>; during: (a: DaemonProc) => Promise<void> }): Promise<void> {
  const a = await fleet.host('a');
  const b = await fleet.host('b');
  await fleet.submit('finisher', ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do echo step $i; sleep 0.5; done'], ['--host', 'a']);
  await fleet.submit('asker', ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do echo step $i; sleep 0.5; done; read -p "Overwrite the config? (y/n) " x; echo "got $x"'], ['--host', 'b']);
  await fleet.waitAll((js) => js.filter((j) => j.state === 'running').length === 2, 30_000, 'both running');
  await o.away();
  const down = Date.now();
  try {
    // The hosts go on: the finisher ends and the asker blocks (and pages, into the local journal).
    await a.waitState('finisher', 'done', 'exit', 20_000);
    await b.waitState('asker', 'blocked', undefined, 20_000);
    await o.during(a);
    expect(fleet.pagesGot()).toEqual([]);
    await new Promise((res) => setTimeout(res, Math.max(0, ms - (Date.now() - down))));
  } finally {
    await o.back();
  }
  const jobs = await fleet.waitAll((js) => js.find((j) => j.name === 'finisher')?.state === 'done' && js.find((j) => j.name === 'asker')?.state === 'blocked', 60_000, 'the journal flushed');
  const finisher = jobs.find((j) => j.name === 'finisher')!;
  const moves = await fleet.sql<{ state: string; code: string }>(`SELECT state, reason->>'code' AS code FROM fleet_transitions WHERE job = $1 ORDER BY time, seq`, [finisher.id]);
  expect(moves.map((m) => `${m.state}/${m.code}`)).toEqual(['queued/submitted', 'queued/submitted', 'running/started', 'done/exit']);
  // Every local move reached the fleet: the same count on both sides.
  const local = (await a.show('finisher')).transitions.length;
  expect(moves.length).toBe(local + 1);
  await fleet.pages!.waitHits('/hook', 1, 30_000);
  await new Promise((res) => setTimeout(res, 4_000));
  const keys = fleet.pagesGot().map((p) => p.key);
  expect(keys.filter((k) => k.startsWith(jobs.find((j) => j.name === 'asker')!.id)).length).toBe(1);
  expect(duplicates(keys)).toEqual([]);
  // The hosts were not silent, the database was: nobody is declared lost for the outage.
  const hosts = JSON.parse((await fleet.ns('hosts', ['--json'])).stdout) as { hosts: Array<{ name: string; state: string }> };
  expect(hosts.hosts.map((h) => `${h.name}:${h.state}`)).toEqual(['a:up', 'b:up']);
  expect(fleet.pagesGot().filter((p) => p.kind === 'lost')).toEqual([]);
  const answered = await fleet.ns('answer', ['asker', 'n']);
  expect(answered.code, answered.stderr).toBe(0);
  await fleet.waitJob('asker', (j) => j.state === 'done', 20_000, 'done after the answer');
}
