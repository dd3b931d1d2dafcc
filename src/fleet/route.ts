/**
 * A command of the daemon's table answered through the fleet board instead
 * of one daemon's socket: what `--board URL` makes every verb do, and what
 * a fleet daemon's web API does. Each command's record says which way
 * (its `fleet`, src/api/commands.ts):
 *   - board, status: read from PostgreSQL;
 *   - submit: a row in the queue, claimed by whichever host has a slot;
 *   - show: asked of the owning host while it is up (signals, prompt,
 *     evidence), else from the database (its stored screen);
 *   - answer, send, key, continue, cancel, evidence: a command row to the
 *     owning host, whose reply says whether it applied it; ack also
 *     closes the pages in the shared outbox, so it works with the host gone;
 *   - attach, logs stream from the owning host: its socket or its web view.
 * Records leave masked, as they leave a daemon (job-secrets.ts).
 */
import { fleetRouted } from '../api/commands.js';
import type { JobRecord } from '../board/types.js';
import { maskJob, maskShown } from '../notify/job-secrets.js';
import { ConflictError, InputError } from '../util/errors.js';
import { runOnHost } from './commands.js';
import type { FleetDb } from './db.js';
import { listHosts, type HostView } from './hosts.js';
import { cancelUnclaimed, jobTransitions, listJobs, requireClaim, requireJob, submitJob, type FleetJob } from './jobs.js';
import { closePages, pageHistory } from './outbox.js';
import { readScreen } from './screens.js';

/** Commands that act on one job through its owning host. */
const ROUTED = fleetRouted('owner');
const STREAMED = fleetRouted('stream');
/** What a fleet daemon's web view answers through the fleet board (fleet/web.ts). */
export const FLEET_COMMANDS: ReadonlySet<string> = new Set([...fleetRouted('board'), ...ROUTED]);

/** How long `show` waits for the owning host before it answers from the database alone. */
const SHOW_WAIT_MS = 3_000;

const masked = (j: FleetJob): FleetJob => ({ ...maskJob(j), host: j.host });

export interface FleetCallContext {
  readonly now?: () => number;
  /** The calling daemon, when a fleet host calls (its web view): its own jobs are run here, not sent through the database. */
  readonly local?: { readonly name: string; run(cmd: string, args: Record<string, unknown>): Promise<unknown> };
}

/** Runs `cmd` on the job's owning host: here when that is the caller, else as a command row. */
function onHost(db: FleetDb, host: string, cmd: string, args: Record<string, unknown>, ctx: FleetCallContext, waitMs?: number): Promise<unknown> {
  if (ctx.local?.name === host) return ctx.local.run(cmd, args);
  return runOnHost(db, host, String(args.job), cmd, args, waitMs);
}

export async function callFleet(db: FleetDb, cmd: string, args: Record<string, unknown>, ctx: FleetCallContext = {}): Promise<unknown> {
  const now = ctx.now ?? Date.now;
  if (cmd === 'board') return { jobs: (await listJobs(db)).map(masked) };
  if (cmd === 'submit') return submit(db, args.spec as Record<string, unknown>, now());
  if (cmd === 'show') return show(db, String(args.job), ctx);
  if (ROUTED.has(cmd)) return routed(db, cmd, args, now(), ctx);
  if (STREAMED.has(cmd)) return streamed(db, cmd, String(args.job));
  throw new InputError(`"${cmd}" talks to one daemon, not the fleet board: run it on that host with --state (without --board)`);
}

async function submit(db: FleetDb, spec: Record<string, unknown>, now: number) {
  const { host, env_of: envOf, ...rest } = spec as Record<string, unknown> & { host?: unknown; env_of?: unknown; env?: Record<string, string> };
  if (host !== undefined && typeof host !== 'string') throw new InputError('submit --host takes a host name');
  // resume names the job to take the env from (show only hands out masked values).
  const env = envOf !== undefined ? { ...(await requireJob(db, String(envOf))).env, ...(rest.env ?? {}) } : rest.env;
  const rec = await submitJob(db, { ...rest, env }, now, host ?? null);
  await db.query(`SELECT pg_notify('nightshift_jobs', $1)`, [rec.id]);
  const hosts = await listHosts(db);
  return { job: masked(rec), notice: placementNotice(host ?? null, hosts) };
}

/** Said when the job cannot start soon: no host up, or its pinned host is not. */
function placementNotice(pinned: string | null, hosts: HostView[]): string | null {
  const up = hosts.filter((h) => h.state === 'up');
  if (pinned && !up.some((h) => h.name === pinned)) return `queued; host ${pinned} is ${hosts.some((h) => h.name === pinned) ? 'not up' : 'not known to the fleet yet'}, so it starts when that host is`;
  if (!up.length) return 'queued; no host is up on the fleet board, so it starts when one joins';
  return null;
}

async function hostOf(db: FleetDb, name: string): Promise<HostView | undefined> {
  return (await listHosts(db)).find((h) => h.name === name);
}

async function show(db: FleetDb, idOrName: string, ctx: FleetCallContext) {
  const { job, owner } = await requireClaim(db, idOrName);
  const host = owner ? await hostOf(db, owner) : undefined;
  const [transitions, pages, stored] = await Promise.all([jobTransitions(db, job.id), pageHistory(db, job.id), readScreen(db, job.id)]);
  // Where the live terminal is: the owning host's web view, when it is another host's.
  const elsewhere = host && host.name !== ctx.local?.name;
  const live_url = elsewhere && host.web_url ? `${host.web_url}/jobs/${encodeURIComponent(job.name)}` : null;
  const fleet = { host: job.host, remote: Boolean(elsewhere), live_url, screen_updated: stored?.updated ?? null };
  if (host?.state === 'up') {
    try {
      const remote = (await onHost(db, host.name, 'show', { job: job.id }, ctx, SHOW_WAIT_MS)) as Record<string, unknown>;
      return { ...remote, job: { ...(remote.job as JobRecord), host: job.host }, transitions: maskShown({ job, transitions }).transitions, pages, ...fleet };
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
    }
  }
  const shown = maskShown({ job, transitions, signals: null, rules_coverage: null, warnings: [], screen: stored?.screen ?? null, evidence: [], pages, prompt: null });
  return { ...shown, job: { ...shown.job, host: job.host }, ...fleet };
}

async function routed(db: FleetDb, cmd: string, args: Record<string, unknown>, now: number, ctx: FleetCallContext): Promise<unknown> {
  // Routed by who claimed it: a job only pinned to a host has not reached it yet.
  const { job, owner } = await requireClaim(db, String(args.job));
  const acked = cmd === 'ack' ? await closePages(db, job.id, 'acked', now) : 0;
  if (!owner) return unclaimed(db, cmd, job, args, now, acked, ctx);
  const host = await hostOf(db, owner);
  if (host?.state !== 'up') {
    if (cmd === 'ack') return { job: job.id, acknowledged: acked };
    throw new ConflictError(`job ${job.name} is on host ${owner}, which is ${host ? `lost (last seen ${host.last_seen})` : 'not known'}; nothing was sent`);
  }
  const reply = await onHost(db, host.name, cmd, { ...args, job: job.id }, ctx);
  if (cmd === 'ack') return { ...(reply as object), acknowledged: Math.max(acked, (reply as { acknowledged: number }).acknowledged) };
  return reply;
}

/** A queued job no host has claimed: a cancel ends it here; nothing else has anywhere to go yet. */
async function unclaimed(db: FleetDb, cmd: string, job: FleetJob, args: Record<string, unknown>, now: number, acked: number, ctx: FleetCallContext): Promise<unknown> {
  const who = typeof args.who === 'string' && args.who ? args.who : 'unknown';
  if (cmd === 'ack') return { job: job.id, acknowledged: acked };
  if (cmd === 'evidence') return { records: [] };
  if (cmd === 'cancel') {
    if (job.state === 'done') throw new InputError(`job ${job.name} is already done (${job.reason.code})`);
    if (await cancelUnclaimed(db, job.id, who, now)) return { job: job.id, cancelled: true, by: `human:${who}` };
    // A host claimed it meanwhile: it is that host's to cancel now.
    return routed(db, cmd, args, now, ctx);
  }
  throw new InputError(`job ${job.name} is ${job.state} on the fleet board and no host has it yet; nothing to ${cmd}`);
}

async function streamed(db: FleetDb, cmd: string, idOrName: string): Promise<never> {
  const job = await requireJob(db, idOrName);
  const host = job.host ? await hostOf(db, job.host) : undefined;
  const web = host?.web_url ? `, or open ${host.web_url}/jobs/${encodeURIComponent(job.id)}` : '';
  throw new InputError(
    job.host
      ? `${cmd} streams from the host that runs the job: on host ${job.host} run \`nightshift ${cmd} ${job.name} --state DIR\`${web}`
      : `job ${job.name} has not started on any host yet; nothing to ${cmd}`,
  );
}

export type { FleetJob, JobRecord };
