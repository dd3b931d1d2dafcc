/**
 * The fleet board's SQL against a real PostgreSQL: versioned migrations,
 * claims (priority, FIFO, pinning, --after, SKIP LOCKED under a race), the
 * shared outbox's lease, command rows that expire instead of landing late,
 * and the CLI's one-line errors for a bad or unreachable board.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/board/types.js';
import { runCli } from '../helpers/cli.js';
import { runOnHost, takeCommands } from '../../src/fleet/commands.js';
import { FleetDb } from '../../src/fleet/db.js';
import { parseBoardUrl } from '../../src/fleet/names.js';
import { queuePage } from '../../src/fleet/hosts.js';
import { claimJobs, failBlockedDependents, pushFromHost, submitJob } from '../../src/fleet/jobs.js';
import { pageHistory, PgOutbox } from '../../src/fleet/outbox.js';
import { callFleet } from '../../src/fleet/route.js';
import { FLEET_SCHEMA_VERSION } from '../../src/fleet/schema.js';
import type { Page } from '../../src/notify/page.js';
import { fleetCluster } from '../helpers/fleet.js';

const cluster = fleetCluster();
const T = Date.parse('2026-12-02T12:00:00Z');

const spec = (name: string, extra: Record<string, unknown> = {}) => ({ name, command: ['true'], cwd: '/', env: {}, budgets: {}, priority: 0, after: [], ...extra });

async function withDb<T>(fn: (db: FleetDb) => Promise<T>): Promise<T> {
  const db = FleetDb.open(await cluster().database());
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const names = (rs: JobRecord[]) => rs.map((r) => r.name);

const runCommand = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { env: { NIGHTSHIFT_BOARD: undefined, NIGHTSHIFT_STATE: undefined, ...env }, ms: 20_000 });

describe('the fleet board in PostgreSQL', () => {
  it('migrates once, records its version, and refuses a database from a newer nightshift', async () => {
    const url = await cluster().database();
    for (let i = 0; i < 2; i++) {
      const db = FleetDb.open(url);
      expect(await db.query('SELECT version FROM fleet_schema ORDER BY version')).toEqual(Array.from({ length: FLEET_SCHEMA_VERSION }, (_, k) => ({ version: k + 1 })));
      await db.close();
    }
    const db = FleetDb.open(url);
    await db.query('INSERT INTO fleet_schema (version) VALUES ($1)', [FLEET_SCHEMA_VERSION + 1]);
    await db.close();
    const again = FleetDb.open(url);
    await expect(again.query('SELECT 1')).rejects.toThrow(`has schema version ${FLEET_SCHEMA_VERSION + 1}, newer than this nightshift understands (${FLEET_SCHEMA_VERSION}); upgrade nightshift`);
    await again.close();
  });

  it('claims by priority then submission order, keeps a pinned job for its host, and waits for --after across hosts', () =>
    withDb(async (db) => {
      await submitJob(db, spec('low'), T, null);
      await submitJob(db, spec('high', { priority: 5 }), T + 1, null);
      await submitJob(db, spec('for-b'), T + 2, 'b');
      await submitJob(db, spec('then', { after: ['low'] }), T + 3, null);
      await submitJob(db, spec('low2'), T + 4, null);
      expect(names(await claimJobs(db, 'a', 2))).toEqual(['high', 'low']);
      expect(names(await claimJobs(db, 'a', 5))).toEqual(['low2']);
      expect(names(await claimJobs(db, 'b', 5))).toEqual(['for-b']);
      // low ends well on host a: then is free to run anywhere.
      const low = (await db.query<{ record: JobRecord }>(`SELECT record FROM fleet_jobs WHERE name = 'low'`))[0]!.record;
      await pushFromHost(db, 'a', 'a/1', [{ seq: 1, job: low.id, time: new Date(T + 9).toISOString(), state: 'done', reason: { code: 'exit', exit_code: 0 } }], [{ ...low, after: [], state: 'done', reason: { code: 'exit', exit_code: 0 } }]);
      expect(names(await claimJobs(db, 'b', 5))).toEqual(['then']);
      // A repeated flush adds nothing.
      await pushFromHost(db, 'a', 'a/1', [{ seq: 1, job: low.id, time: new Date(T + 9).toISOString(), state: 'done', reason: { code: 'exit', exit_code: 0 } }], []);
      expect(await db.query(`SELECT count(*)::int AS n FROM fleet_transitions WHERE job = $1 AND state = 'done'`, [low.id])).toEqual([{ n: 1 }]);
    }));

  it('ends a queued job whose --after job failed (done/dependency-failed) and pages it once', () =>
    withDb(async (db) => {
      const dep = await submitJob(db, spec('dep'), T, null);
      await submitJob(db, spec('child', { after: ['dep'] }), T + 1, null);
      await claimJobs(db, 'a', 1);
      await pushFromHost(db, 'a', 'a/1', [], [{ ...dep, state: 'done', reason: { code: 'exit', exit_code: 3 } }]);
      const ended = await failBlockedDependents(db, T + 5, ['hook']);
      expect(ended.map((j) => `${j.name}:${j.state}/${j.reason.code}:${j.reason.detail}`)).toEqual(['child:done/dependency-failed:a job in --after did not succeed: dep (exit)']);
      expect(await failBlockedDependents(db, T + 6, ['hook'])).toEqual([]);
      expect(await db.query(`SELECT notifier, page->>'kind' AS kind FROM fleet_outbox`)).toEqual([{ notifier: 'hook', kind: 'dependency-failed' }]);
    }));

  it('gives 400 jobs submitted in the same second distinct ids, and refuses a name twice', () =>
    withDb(async (db) => {
      const ids = new Set<string>();
      for (let i = 0; i < 400; i++) ids.add((await submitJob(db, spec(`burst${i}`), T, null)).id);
      expect(ids.size).toBe(400);
      await expect(submitJob(db, spec('burst7'), T, null)).rejects.toThrow(/^a job named "burst7" already exists on the fleet board \(id j-20261202-120000-[0-9a-f]{4}\)$/);
    }));

  it('gives each of 40 jobs to exactly one of 5 hosts claiming at once', () =>
    withDb(async (db) => {
      for (let i = 0; i < 40; i++) await submitJob(db, spec(`j${i}`), T + i, null);
      const hosts = ['a', 'b', 'c', 'd', 'e'];
      const got = await Promise.all(
        hosts.map(async (h) => {
          const mine: string[] = [];
          for (let r = 0; r < 10; r++) mine.push(...names(await claimJobs(db, h, 3)));
          return mine;
        }),
      );
      const all = got.flat();
      expect(all.length).toBe(40);
      expect(new Set(all).size).toBe(40);
    }));

  it('leases a page to one sender at a time; another may retry once the lease ended; a sent page is not sent again', () =>
    withDb(async (db) => {
      const page = { key: 'j-x:1', job: 'j-x', name: 'x', state: 'blocked', reason: 'prompt', kind: 'prompt', rule: null, class: null, prompt: 'y/n', screen: [], answer_command: 'nightshift answer x y', time: new Date(T).toISOString(), urgent: false } as Page;
      await db.tx((c) => queuePage(c, page, ['hook'], T));
      await db.tx((c) => queuePage(c, page, ['hook'], T));
      const [a, b] = [new PgOutbox(db, 'a'), new PgOutbox(db, 'b')];
      const [row] = await a.due(T, 10, ['hook']);
      expect(await b.due(T, 10, ['other'])).toEqual([]);
      const claims = await Promise.all([a.claim(row!.id, T, T + 60_000), b.claim(row!.id, T, T + 60_000)]);
      expect(claims.filter(Boolean).length).toBe(1);
      expect(await b.due(T + 1_000, 10, ['hook'])).toEqual([]);
      // The sender died mid-send: after its lease another host gets it.
      expect(await b.claim(row!.id, T + 60_001, T + 120_000)).toBe(true);
      await b.delivered(row!.id, T + 60_002, false);
      expect(await a.due(T + 200_000, 10, ['hook'])).toEqual([]);
      expect((await pageHistory(db, 'j-x')).map((r) => r.status)).toEqual(['delivered']);
    }));

  it('shows and cancels a job pinned to a host that has not claimed it, from the database', () =>
    withDb(async (db) => {
      await submitJob(db, spec('waits', { env: { API_TOKEN: 'hunter2hunter2' } }), T, 'ghost');
      const shown = (await callFleet(db, 'show', { job: 'waits' })) as { job: { host: string; state: string; env: Record<string, string> }; remote: boolean; screen: string | null };
      expect([shown.job.host, shown.job.state, shown.remote, shown.screen, shown.job.env.API_TOKEN]).toEqual(['ghost', 'queued', false, null, '***']);
      expect(await callFleet(db, 'cancel', { job: 'waits', who: 'alice' })).toEqual({ job: expect.any(String), cancelled: true, by: 'human:alice' });
      const { state, code } = (await db.query<{ state: string; code: string }>(`SELECT state, record->'reason'->>'code' AS code FROM fleet_jobs WHERE name = 'waits'`))[0]!;
      expect(`${state}/${code}`).toBe('done/cancelled');
      await expect(callFleet(db, 'answer', { job: 'waits', text: 'y' })).rejects.toThrow('job waits is done on the fleet board and no host has it yet; nothing to answer');
    }));

  it('expires a command no host took in time, and a host never runs an expired one', () =>
    withDb(async (db) => {
      await expect(runOnHost(db, 'gone', 'j-1', 'answer', { job: 'j-1', text: 'y' }, 600)).rejects.toThrow('host gone did not take the command within 0.6 s (is it up? nightshift hosts); nothing was applied');
      expect(await takeCommands(db, 'gone')).toEqual([]);
      expect(await db.query(`SELECT state FROM fleet_commands`)).toEqual([{ state: 'expired' }]);
    }));

  it('a bad or unreachable --board is one line and exit 2', async () => {
    expect(() => parseBoardUrl('mysql://x', '--board')).toThrow('--board "mysql://x" must be a postgres:// URL');
    const bad = await runCommand(['board', '--board', 'mysql://u:secret@h/x']);
    expect([bad.code, bad.stderr]).toEqual([2, 'nightshift: --board "mysql://u:secret@h/x" must be a postgres:// URL\n']);
    const down = await runCommand(['board', '--board', 'postgres://me:hunter2@127.0.0.1:1/x']);
    expect([down.code, down.stderr]).toEqual([2, 'nightshift: cannot reach the fleet board at postgres://me:***@127.0.0.1:1/x: ECONNREFUSED\n']);
    const hosts = await runCommand(['hosts'], { NIGHTSHIFT_BOARD: undefined });
    expect([hosts.code, hosts.stderr]).toEqual([2, 'nightshift: hosts lists a fleet board: give --board postgres://… (or NIGHTSHIFT_BOARD)\n']);
    const pin = await runCommand(['submit', '--host', 'b', '--', 'true'], { NIGHTSHIFT_BOARD: undefined });
    expect([pin.code, pin.stderr]).toEqual([2, 'nightshift: --host pins a job to a fleet host: give --board postgres://… (or NIGHTSHIFT_BOARD) too\n']);
  });
});
