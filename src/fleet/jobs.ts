/**
 * Jobs on the fleet board: submitting, reading, claiming, and taking in
 * what a host's own SQLite board did with them. A record here is the JSON
 * the owning host's board holds; `host` rides beside it.
 */
import { toReason } from '../board/reasons.js';
import { newJobParams, toJobRecord, type JobRow } from '../board/rows.js';
import type { JobReason, JobRecord, JobState, TransitionRecord } from '../board/types.js';
import { isoTime, newJobId, validateSpec } from '../board/validate.js';
import { doneExit, isSuccess } from '../core/outcome.js';
import { InputError, NotFoundError } from '../util/errors.js';
import type { FleetDb, Queryable } from './db.js';
import { endedPage } from '../notify/ended-pages.js';
import { redactPage } from '../notify/page.js';
import { redactorFor } from '../notify/secrets.js';
import { queuePage } from './hosts.js';

export type FleetJob = JobRecord & { host: string | null };

interface JobDbRow {
  record: JobRecord;
  host: string | null;
  pinned: string | null;
}

const asJob = (r: JobDbRow): FleetJob => ({ ...r.record, host: r.host ?? r.pinned });

/** A record built as the SQLite board builds one (rows.ts), so both boards print alike. */
function newRecord(id: string, spec: ReturnType<typeof validateSpec>, created: string, reason: JobReason): JobRecord {
  const p = newJobParams(id, spec, created, reason);
  return toJobRecord({ ...p, seq: 0, started: null, ended: null, last_activity: null, exit: null, paths: null, tokens_used: null } as unknown as JobRow);
}

/** Queues a job (pinned to `host` when given). Checks everything first; on any error nothing is written. */
export async function submitJob(db: FleetDb, spec: unknown, now: number, host: string | null): Promise<FleetJob> {
  const checked = validateSpec(spec);
  const created = isoTime(now);
  return db.tx(async (c) => {
    const after = [...new Set(await Promise.all(checked.after.map((ref) => dependencyId(c, ref))))];
    const reason: JobReason = host ? { code: 'submitted', detail: `pinned to host ${host}` } : { code: 'submitted' };
    const rec = await insertNew(c, (id) => newRecord(id, { ...checked, after }, created, reason), now, host);
    const id = rec.id;
    await c.query(`INSERT INTO fleet_transitions (job, time, state, reason) VALUES ($1, $2, 'queued', $3)`, [id, created, reason]);
    return { ...rec, host };
  });
}

/**
 * Inserts the record under a fresh id. The unique name is the lock: of two
 * CLIs submitting one name at once, one gets the error. Ids are
 * `j-<second>-<4 hex>`, so a burst of submits in one second can draw the
 * same id: that draw is retried, a taken name is not.
 */
async function insertNew(c: Queryable, build: (id: string) => JobRecord, now: number, host: string | null): Promise<JobRecord> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const rec = build(newJobId(now, () => false));
    const ins = await c.query(
      `INSERT INTO fleet_jobs (id, name, state, priority, after_ids, pinned, record)
       VALUES ($1, $2, 'queued', $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id`,
      [rec.id, rec.name, rec.priority, rec.after, host, rec],
    );
    if (ins.rowCount === 1) return rec;
    const { rows } = await c.query<{ id: string }>('SELECT id FROM fleet_jobs WHERE name = $1', [rec.name]);
    if (rows[0]) throw new InputError(`a job named "${rec.name}" already exists on the fleet board (id ${rows[0].id})`);
  }
  throw new Error('no free job id after 20 draws');
}

async function dependencyId(c: Queryable, ref: string): Promise<string> {
  const { rows } = await c.query<{ id: string }>('SELECT id FROM fleet_jobs WHERE id = $1 OR name = $1', [ref]);
  if (!rows[0]) throw new InputError(`after: no job "${ref}" on the fleet board; nightshift board lists them`);
  return rows[0].id;
}

export async function listJobs(db: FleetDb): Promise<FleetJob[]> {
  return (await db.query<JobDbRow>('SELECT record, host, pinned FROM fleet_jobs ORDER BY seq')).map(asJob);
}

export async function requireJob(db: Pick<FleetDb, 'query'>, idOrName: string): Promise<FleetJob> {
  return (await requireClaim(db, idOrName)).job;
}

/** A job's moves as every host reported them, in time order (a flush after an outage lands late, not out of order). */
export async function jobTransitions(db: FleetDb, id: string): Promise<TransitionRecord[]> {
  const rows = await db.query<{ job: string; time: string; state: JobState; reason: JobReason }>(
    'SELECT job, time, state, reason FROM fleet_transitions WHERE job = $1 ORDER BY time, seq',
    [id],
  );
  return rows.map((r) => ({ job: r.job, time: r.time, state: r.state, reason: r.reason }));
}

export async function jobCounts(db: FleetDb): Promise<Record<JobState, number>> {
  const counts: Record<JobState, number> = { queued: 0, running: 0, blocked: 0, done: 0 };
  for (const r of await db.query<{ state: JobState; n: string }>('SELECT state, count(*) AS n FROM fleet_jobs GROUP BY state')) counts[r.state] = Number(r.n);
  return counts;
}

/**
 * Claims up to `n` queued jobs for `host`: unpinned or pinned to it, every
 * --after job succeeded, highest priority then first submitted. SKIP
 * LOCKED: hosts claiming at once each take different rows and none waits.
 */
export async function claimJobs(db: FleetDb, host: string, n: number): Promise<JobRecord[]> {
  if (n <= 0) return [];
  const rows = await db.query<{ record: JobRecord }>(
    `WITH c AS (
       SELECT j.id FROM fleet_jobs j
       WHERE j.state = 'queued' AND j.host IS NULL AND (j.pinned IS NULL OR j.pinned = $1)
         AND NOT EXISTS (SELECT 1 FROM unnest(j.after_ids) a LEFT JOIN fleet_jobs d ON d.id = a WHERE d.outcome IS DISTINCT FROM 'succeeded')
       ORDER BY j.priority DESC, j.seq
       FOR UPDATE OF j SKIP LOCKED LIMIT $2)
     UPDATE fleet_jobs f SET host = $1, claimed_at = now(), updated = now() FROM c WHERE f.id = c.id
     RETURNING f.record`,
    [host, n],
  );
  return rows.map((r) => r.record);
}

/** The last transition of board `source` the fleet has: where a flush resumes. */
export async function lastPushedTransition(db: FleetDb, source: string): Promise<number> {
  const rows = await db.query<{ s: string | null }>('SELECT max(local_seq) AS s FROM fleet_transitions WHERE source = $1', [source]);
  return Number(rows[0]?.s ?? 0);
}

/** Jobs the fleet says `host` claimed and has not started: after a crash between a claim and its adoption, the host has them or takes them back. */
export async function claimedQueued(db: FleetDb, host: string): Promise<JobRecord[]> {
  return (await db.query<{ record: JobRecord }>(`SELECT record FROM fleet_jobs WHERE host = $1 AND state = 'queued'`, [host])).map((r) => r.record);
}

/** A job and the host that claimed it (not the one it is pinned to: commands go where it runs), in one read. */
export async function requireClaim(db: Pick<FleetDb, 'query'>, idOrName: string): Promise<{ job: FleetJob; owner: string | null }> {
  const rows = await db.query<JobDbRow>('SELECT record, host, pinned FROM fleet_jobs WHERE id = $1 OR name = $1', [idOrName]);
  if (!rows[0]) throw new NotFoundError(`no job "${idOrName}" on the fleet board; nightshift board lists them`);
  return { job: asJob(rows[0]), owner: rows[0].host };
}

/** A claimed job this host could not take in (a name clash on its own board): back to the queue. */
export async function releaseJob(db: FleetDb, id: string, host: string): Promise<void> {
  await db.query(`UPDATE fleet_jobs SET host = NULL, claimed_at = NULL WHERE id = $1 AND host = $2 AND state = 'queued'`, [id, host]);
}

/**
 * Queued jobs whose --after job ended without success can never run: done/
 * dependency-failed, as the SQLite board's scheduler does. Any host may do
 * it; the row lock makes it happen once. Returns the jobs ended.
 */
export async function failBlockedDependents(db: FleetDb, now: number, notifiers: readonly string[]): Promise<JobRecord[]> {
  const time = isoTime(now);
  const any = await db.query(
    `SELECT 1 FROM fleet_jobs j WHERE j.state = 'queued' AND j.host IS NULL
       AND EXISTS (SELECT 1 FROM unnest(j.after_ids) a JOIN fleet_jobs d ON d.id = a WHERE d.outcome = 'failed') LIMIT 1`,
  );
  if (!any.length) return [];
  return db.tx(async (c) => {
    const { rows } = await c.query<{ id: string; record: JobRecord }>(
      `SELECT j.id, j.record FROM fleet_jobs j
       WHERE j.state = 'queued' AND j.host IS NULL
         AND EXISTS (SELECT 1 FROM unnest(j.after_ids) a JOIN fleet_jobs d ON d.id = a WHERE d.outcome = 'failed')
       FOR UPDATE SKIP LOCKED`,
    );
    const ended: JobRecord[] = [];
    for (const r of rows) {
      const failed = await c.query<{ what: string }>(
        `SELECT d.name || ' (' || (d.record->'reason'->>'code') || ')' AS what FROM fleet_jobs d WHERE d.id = ANY($1) AND d.outcome = 'failed' ORDER BY d.seq`,
        [r.record.after],
      );
      const reason: JobReason = { code: 'dependency-failed', detail: `a job in --after did not succeed: ${failed.rows.map((f) => f.what).join(', ')}` };
      const rec: JobRecord = { ...r.record, state: 'done', reason, ended: time, exit: doneExit(reason) };
      await c.query(`UPDATE fleet_jobs SET state = 'done', outcome = 'failed', record = $2, updated = now() WHERE id = $1`, [r.id, rec]);
      await c.query(`INSERT INTO fleet_transitions (job, time, state, reason) VALUES ($1, $2, 'done', $3)`, [r.id, time, reason]);
      const page = endedPage(rec, 'dependency-failed', `${rec.name} will not run: ${reason.detail}`, now);
      await queuePage(c, redactPage(page, redactorFor(rec.env)), notifiers, now);
      ended.push(rec);
    }
    return ended;
  });
}

/** A queued job nobody claimed yet is cancelled here; false when a host has it (the host must do it). */
export async function cancelUnclaimed(db: FleetDb, id: string, who: string, now: number): Promise<boolean> {
  const time = isoTime(now);
  const reason: JobReason = { code: 'cancelled', detail: `cancelled by human:${who} before it started` };
  return db.tx(async (c) => {
    const { rows } = await c.query<{ record: JobRecord }>(`SELECT record FROM fleet_jobs WHERE id = $1 AND state = 'queued' AND host IS NULL FOR UPDATE`, [id]);
    if (!rows[0]) return false;
    const rec: JobRecord = { ...rows[0].record, state: 'done', reason, ended: time };
    await c.query(`UPDATE fleet_jobs SET state = 'done', outcome = 'failed', record = $2, updated = now() WHERE id = $1`, [id, rec]);
    await c.query(`INSERT INTO fleet_transitions (job, time, state, reason) VALUES ($1, $2, 'done', $3)`, [id, time, reason]);
    return true;
  });
}

export interface LocalTransition extends TransitionRecord {
  seq: number;
}

/**
 * Takes in what host `host` did since its last flush: its transitions (in
 * its own order; the (host, seq) key makes a repeated flush a no-op) and
 * the current records of the jobs they touched or that changed. A job the
 * fleet declared lost with its host keeps that verdict; the host's moves
 * still join its log.
 */
export async function pushFromHost(db: FleetDb, host: string, source: string, transitions: LocalTransition[], records: JobRecord[]): Promise<void> {
  await db.tx(async (c) => {
    if (transitions.length) {
      await c.query(
        `INSERT INTO fleet_transitions (job, host, source, local_seq, time, state, reason)
         SELECT t.job, $1, $2, t.seq, t.time, t.state, t.reason FROM jsonb_to_recordset($3::jsonb) AS t(job text, seq bigint, time text, state text, reason jsonb)
         ON CONFLICT (source, local_seq) DO NOTHING`,
        [host, source, JSON.stringify(transitions)],
      );
    }
    for (const rec of records) await upsertRecord(c, host, rec);
  });
}

async function upsertRecord(c: Queryable, host: string, rec: JobRecord): Promise<void> {
  const outcome = rec.state === 'done' ? (isSuccess(toReason(rec.reason)) ? 'succeeded' : 'failed') : null;
  // `after` stays the fleet's: the host's copy has none (Board.adopt). Spliced as text to keep the
  // record's key order; `"after":[]` cannot occur inside a JSON string (its quotes would be escaped).
  const r = await c.query(
    `UPDATE fleet_jobs SET state = $3, outcome = $4, record = replace($5::text, '"after":[]', '"after":' || (record->'after')::text)::json, host = $2, updated = now()
     WHERE id = $1 AND (host = $2 OR host IS NULL) AND NOT (state = 'done' AND record->'reason'->>'code' = 'lost-host')`,
    [rec.id, host, rec.state, outcome, JSON.stringify({ ...rec, after: [] })],
  );
  if (r.rowCount) return;
  const { rows } = await c.query('SELECT 1 FROM fleet_jobs WHERE id = $1', [rec.id]);
  if (rows.length) return;
  // Submitted to this host's own socket, not the fleet: it joins the board, pinned to its host.
  await c.query(
    `INSERT INTO fleet_jobs (id, name, state, priority, after_ids, pinned, host, claimed_at, outcome, record)
     VALUES ($1, $2, $3, $4, '{}', $5, $5, now(), $6, $7) ON CONFLICT DO NOTHING`,
    [rec.id, rec.name, rec.state, rec.priority, host, outcome, { ...rec, after: [] }],
  );
}
