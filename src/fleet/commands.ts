/**
 * Command rows: how an answer, a key, a cancel… typed on one host reaches
 * the daemon that runs the job on another. Nothing listens between hosts:
 * the caller inserts a row and NOTIFYs the owner's channel; the owner,
 * LISTENing (and polling, in case a notification is lost with its
 * connection), takes the row, runs the command from its own command table
 * and writes the reply into the row; the caller waits for that reply.
 *
 * A row expires: an answer that reaches a host minutes late could land on
 * a different question, so a host never runs one past its time.
 */
import type pg from 'pg';
import { ConflictError, InputError, NotFoundError } from '../util/errors.js';
import type { FleetDb } from './db.js';

export const COMMAND_CHANNEL = 'nightshift_commands';
export const REPLY_CHANNEL = 'nightshift_replies';

/** How long a caller waits for the owner, and how long the row stays good. */
export const COMMAND_WAIT_MS = 10_000;

export interface CommandRow {
  id: number;
  host: string;
  job: string | null;
  name: string;
  args: Record<string, unknown>;
}

/** An error as it travels in a row: its class survives, so the CLI's exit code and the web's status do too. */
export interface ErrorWire {
  message: string;
  kind: 'input' | 'notfound' | 'conflict' | 'internal';
}

export function toWire(e: unknown): ErrorWire {
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof NotFoundError) return { message, kind: 'notfound' };
  if (e instanceof ConflictError) return { message, kind: 'conflict' };
  if (e instanceof InputError) return { message, kind: 'input' };
  return { message, kind: 'internal' };
}

export class RemoteError extends Error {
  override name = 'RemoteError';
}

function fromWire(w: ErrorWire, host: string): Error {
  const message = `${w.message} (host ${host})`;
  if (w.kind === 'notfound') return new NotFoundError(message);
  if (w.kind === 'conflict') return new ConflictError(message);
  if (w.kind === 'input') return new InputError(message);
  return new RemoteError(message);
}

interface ReplyRow {
  state: 'pending' | 'taken' | 'applied' | 'failed' | 'expired';
  result: unknown;
  error: ErrorWire | null;
}

/**
 * Runs `name` on host `host` and returns its result, or throws its error.
 * Throws a ConflictError when the host did not take the command in time
 * (it is down or cut off): nothing was applied then.
 */
export async function runOnHost(db: FleetDb, host: string, job: string | null, name: string, args: Record<string, unknown>, waitMs = COMMAND_WAIT_MS): Promise<unknown> {
  const listener = await db.listener();
  try {
    let wake: () => void = () => undefined;
    listener.on('notification', () => wake());
    await listener.query(`LISTEN ${REPLY_CHANNEL}`);
    const rows = await db.query<{ id: string }>(
      `WITH c AS (INSERT INTO fleet_commands (host, job, name, args, state, expires) VALUES ($1, $2, $3, $4, 'pending', now() + make_interval(secs => $5)) RETURNING id)
       SELECT id, pg_notify($6, $1) FROM c`,
      [host, job, name, args, waitMs / 1000, COMMAND_CHANNEL],
    );
    const id = rows[0]!.id;
    return await waitReply(db, id, host, waitMs, (fn) => (wake = fn));
  } finally {
    await listener.end().catch(() => undefined);
  }
}

async function waitReply(db: FleetDb, id: string, host: string, waitMs: number, onWake: (fn: () => void) => void): Promise<unknown> {
  // A host that took the row is applying it: give it a little longer than the row's own life.
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [r] = await db.query<ReplyRow>('SELECT state, result, error FROM fleet_commands WHERE id = $1', [id]);
    if (r?.state === 'applied') return r.result;
    if (r?.state === 'failed') throw fromWire(r.error ?? { message: 'failed', kind: 'internal' }, host);
    if (r?.state === 'expired' || Date.now() > deadline + (r?.state === 'taken' ? 5_000 : 0)) return expire(db, id, host, waitMs);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 250);
      onWake(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

async function expire(db: FleetDb, id: string, host: string, waitMs: number): Promise<never> {
  const rows = await db.query(`UPDATE fleet_commands SET state = 'expired', done = now() WHERE id = $1 AND state IN ('pending', 'expired') RETURNING id`, [id]);
  if (rows.length) throw new ConflictError(`host ${host} did not take the command within ${waitMs / 1000} s (is it up? nightshift hosts); nothing was applied`);
  throw new ConflictError(`host ${host} took the command but sent no reply in time; it may or may not have been applied (nightshift show)`);
}

/** The owner's side: takes its oldest pending row that is still good, one at a time (rows not reached stay pending and expire on time). */
export async function takeCommands(db: FleetDb, host: string): Promise<CommandRow[]> {
  // One statement (it runs every second on every host): rows past their time are marked expired, never run; the oldest other one is taken.
  const rows = await db.query<CommandRow & { id: string }>(
    `WITH gone AS (
       UPDATE fleet_commands SET state = 'expired', done = now() WHERE host = $1 AND state = 'pending' AND expires <= now() RETURNING id),
     taken AS (
       UPDATE fleet_commands SET state = 'taken' WHERE id = (
         SELECT id FROM fleet_commands WHERE host = $1 AND state = 'pending' AND expires > now() ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, host, job, name, args)
     SELECT * FROM taken`,
    [host],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export async function finishCommand(db: FleetDb, id: number, outcome: { result: unknown } | { error: ErrorWire }): Promise<void> {
  const ok = 'result' in outcome;
  await db.query(
    `WITH u AS (UPDATE fleet_commands SET state = $2, result = $3, error = $4, done = now() WHERE id = $1 RETURNING id)
     SELECT pg_notify($5, $1::text) FROM u`,
    [id, ok ? 'applied' : 'failed', ok ? JSON.stringify(outcome.result ?? null) : null, ok ? null : outcome.error, REPLY_CHANNEL],
  );
}

/** LISTENs for commands to `host` on `c`; `wake` runs on each (a spare wake-up is harmless: taking finds nothing). */
export async function listenForCommands(c: pg.Client, host: string, wake: () => void): Promise<void> {
  c.on('notification', (n) => {
    if (n.channel === COMMAND_CHANNEL && n.payload === host) wake();
  });
  await c.query(`LISTEN ${COMMAND_CHANNEL}`);
}
