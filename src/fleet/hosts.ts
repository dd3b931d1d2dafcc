/**
 * The host registry: each daemon's heartbeat, `nightshift hosts`, and the
 * sweep that declares a silent host lost. Times are the database's own
 * now(), so hosts whose clocks disagree still agree on who is silent.
 */
import type { JobReason, JobRecord } from '../board/types.js';
import { isoTime } from '../board/validate.js';
import type { Page } from '../notify/page.js';
import type { FleetDb, Queryable } from './db.js';

/** A host silent this long is lost (issue: 30 s). */
export const LOST_AFTER_S = 30;

export interface HostBeat {
  name: string;
  pid: number;
  running: number;
  maxRunning: number;
  webUrl: string | null;
  version: string;
}

export interface HostView {
  name: string;
  state: 'up' | 'lost';
  /** null while up; `silent` (no heartbeat for 30 s) or `stopped` (it shut down cleanly). */
  why: 'silent' | 'stopped' | null;
  last_seen: string;
  started: string;
  lost_at: string | null;
  running: number;
  blocked: number;
  queued: number;
  max_running: number;
  pid: number | null;
  web_url: string | null;
  version: string | null;
}

/** Registers or refreshes `b`. `starting`: the daemon just started, so its start time is now. */
export async function heartbeat(db: FleetDb, b: HostBeat, starting: boolean): Promise<{ wasLost: boolean }> {
  const rows = await db.query<{ was: string | null }>(
    `WITH prev AS (SELECT state FROM fleet_hosts WHERE name = $1)
     INSERT INTO fleet_hosts AS h (name, state, pid, started, last_seen, running, max_running, web_url, version)
     VALUES ($1, 'up', $2, now(), now(), $3, $4, $5, $6)
     ON CONFLICT (name) DO UPDATE SET state = 'up', pid = $2, last_seen = now(), lost_at = NULL, running = $3, max_running = $4, web_url = $5, version = $6,
       started = CASE WHEN $7 THEN now() ELSE h.started END
     RETURNING (SELECT state FROM prev) AS was`,
    [b.name, b.pid, b.running, b.maxRunning, b.webUrl, b.version, starting],
  );
  return { wasLost: rows[0]?.was === 'lost' };
}

/** A clean shutdown: no longer up, and no page about it. */
export async function leave(db: FleetDb, name: string): Promise<void> {
  await db.query(`UPDATE fleet_hosts SET state = 'stopped', lost_at = now(), running = 0 WHERE name = $1`, [name]);
}

export async function listHosts(db: FleetDb): Promise<HostView[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT h.name, h.state, h.pid, h.started, h.last_seen, h.lost_at, h.max_running, h.web_url, h.version,
       h.state = 'up' AND h.last_seen < now() - make_interval(secs => $1) AS silent,
       (SELECT count(*) FROM fleet_jobs j WHERE j.host = h.name AND j.state = 'running') AS running,
       (SELECT count(*) FROM fleet_jobs j WHERE j.host = h.name AND j.state = 'blocked') AS blocked,
       (SELECT count(*) FROM fleet_jobs j WHERE j.host = h.name AND j.state = 'queued') AS queued
     FROM fleet_hosts h ORDER BY h.name`,
    [LOST_AFTER_S],
  );
  return rows.map(toView);
}

const isoOf = (t: unknown): string => (t instanceof Date ? t.toISOString() : String(t));

function toView(r: Record<string, unknown>): HostView {
  const up = r.state === 'up' && r.silent !== true;
  return {
    name: String(r.name),
    state: up ? 'up' : 'lost',
    why: up ? null : r.state === 'stopped' ? 'stopped' : 'silent',
    last_seen: isoOf(r.last_seen),
    started: isoOf(r.started),
    lost_at: r.lost_at ? isoOf(r.lost_at) : null,
    running: Number(r.running),
    blocked: Number(r.blocked),
    queued: Number(r.queued),
    max_running: Number(r.max_running),
    pid: r.pid === null ? null : Number(r.pid),
    web_url: (r.web_url as string | null) ?? null,
    version: (r.version as string | null) ?? null,
  };
}

export interface LostHost {
  name: string;
  last_seen: string;
  ended: JobRecord[];
}

/**
 * Declares every host silent for LOST_AFTER_S lost, once (the conditional
 * UPDATE is the lock: of two sweeping hosts one gets the row). Its running
 * and blocked jobs end done/lost-host; jobs it had claimed but not started
 * go back to the queue (pinned ones stay pinned). A page per lost host is
 * queued for `notifiers` in the same transaction.
 */
export async function sweepLost(db: FleetDb, me: string, now: number, notifiers: readonly string[]): Promise<LostHost[]> {
  // Every host asks every second: one cheap read, and the transaction only when someone is silent.
  const silent = await db.query(`SELECT 1 FROM fleet_hosts WHERE state = 'up' AND name <> $1 AND last_seen < now() - make_interval(secs => $2) LIMIT 1`, [me, LOST_AFTER_S]);
  if (!silent.length) return [];
  return db.tx(async (c) => {
    const { rows } = await c.query<{ name: string; last_seen: Date }>(
      `UPDATE fleet_hosts SET state = 'lost', lost_at = now(), running = 0
       WHERE state = 'up' AND name <> $1 AND last_seen < now() - make_interval(secs => $2) RETURNING name, last_seen`,
      [me, LOST_AFTER_S],
    );
    const lost: LostHost[] = [];
    for (const h of rows) {
      const l = await endJobsOf(c, h.name, h.last_seen.toISOString(), now);
      await queuePage(c, hostPage(l, now), notifiers, now);
      lost.push(l);
    }
    return lost;
  });
}

async function endJobsOf(c: Queryable, host: string, lastSeen: string, now: number): Promise<LostHost> {
  const time = isoTime(now);
  const reason: JobReason = { code: 'lost-host', detail: `host ${host} was silent for ${LOST_AFTER_S} s (last seen ${lastSeen}); what the job did after that is unknown` };
  const { rows } = await c.query<{ id: string; record: JobRecord }>(
    // Claimed but not started too: a host that is only cut off may still start it, so it must not go to another (it would run twice).
    `SELECT id, record FROM fleet_jobs WHERE host = $1 AND state IN ('queued', 'running', 'blocked') FOR UPDATE`,
    [host],
  );
  const ended: JobRecord[] = [];
  for (const r of rows) {
    const rec: JobRecord = { ...r.record, state: 'done', reason, ended: time };
    await c.query(`UPDATE fleet_jobs SET state = 'done', outcome = 'failed', record = $2, updated = now() WHERE id = $1`, [r.id, rec]);
    await c.query(`INSERT INTO fleet_transitions (job, time, state, reason) VALUES ($1, $2, 'done', $3)`, [r.id, time, reason]);
    ended.push(rec);
  }
  return { name: host, last_seen: lastSeen, ended };
}

function hostPage(l: LostHost, now: number): Page {
  const jobs = l.ended.map((j) => j.name);
  return {
    key: `host:${l.name}:${now}`,
    job: `host:${l.name}`,
    name: l.name,
    state: 'lost',
    reason: 'lost-host',
    kind: 'lost',
    rule: null,
    class: null,
    prompt: `host ${l.name} is silent since ${l.last_seen}: ${jobs.length ? `${jobs.join(', ')} ended done/lost-host` : 'it ran no jobs'}`,
    screen: [],
    answer_command: 'nightshift hosts',
    time: isoTime(now),
    // Its jobs ended unseen: a person must know even in quiet hours.
    urgent: true,
  };
}

/** One outbox row per notifier (outbox.ts semantics: one per episode and notifier, never twice). */
export async function queuePage(c: Queryable, page: Page, notifiers: readonly string[], now: number): Promise<void> {
  for (const n of notifiers) {
    await c.query(
      `INSERT INTO fleet_outbox (key, job, notifier, page, status, next_at, created_at) VALUES ($1, $2, $3, $4, 'pending', $5, $5)
       ON CONFLICT DO NOTHING`,
      [page.key, page.job, n, page, now],
    );
  }
}
