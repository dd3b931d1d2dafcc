/**
 * The HTTP API under /api/v1: one route per command of the daemon's command
 * table that names one (src/api/commands.ts). Arguments are the path's
 * parameters plus the body (POST) or the query (GET), checked by the same
 * schema as on the socket; `who` is always the signed-in person, never what
 * the client says, so the evidence reads `human:NAME@web`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HandlerError, NO_STREAM, type CommandRecord, type CommandRunner } from '../api/command.js';
import { ConflictError, InputError, NotFoundError } from '../util/errors.js';
import { callerOf, ipOf, refusal, refuse, type Caller } from './identity.js';
import type { WebRedaction } from './redact.js';
import type { OpenStreams } from './streams.js';
import type { BearerLimit } from './bearer-limit.js';
import { webActor, type AuthStore } from './types.js';

export const API = '/api/v1';

export interface ApiDeps {
  readonly commands: CommandRunner;
  readonly auth: AuthStore;
  readonly now: () => number;
  readonly onError: (e: unknown) => void;
  /** What every answer carrying job data passes through. */
  readonly redaction: WebRedaction;
  /** The open streams, closed when their access ends. */
  readonly streams: OpenStreams;
  readonly bearerLimit: BearerLimit;
}

export function registerApi(app: FastifyInstance, deps: ApiDeps): void {
  for (const cmd of deps.commands.list) {
    if (!cmd.http || cmd.role === 'local') continue;
    app.route({
      method: cmd.http.method,
      url: API + cmd.http.path,
      handler: (req, reply) => callCommand(cmd, req, reply, deps),
    });
  }
}

/** The caller, or a 401/403 already sent. Every refusal of a write is audited. */
export async function authorize(req: FastifyRequest, reply: FastifyReply, deps: ApiDeps, need: CommandRecord['role'], what: string): Promise<Caller | null> {
  const caller = await callerOf(req, deps.auth, deps.now(), deps.bearerLimit);
  const write = req.method !== 'GET';
  const r = refusal(caller, need, write, req);
  if (!r) return caller as Caller;
  const who = caller && 'person' in caller ? caller : null;
  if ((write || r.status !== 401) && (who || anonymous.first(ipOf(req), deps.now()))) {
    deps.auth.audit({ who: who?.person.name ?? '-', action: what, ok: false, ip: ipOf(req), detail: r.error }, deps.now());
  }
  refuse(reply, r);
  return null;
}

/**
 * Refusals of nobody in particular are audited once a minute per address:
 * an anonymous loop must not fill the disk through the audit log.
 */
class FirstPerMinute {
  private readonly seen = new Map<string, number>();

  first(key: string, now: number): boolean {
    const last = this.seen.get(key);
    if (last !== undefined && now - last < 60_000) return false;
    if (this.seen.size >= 1_024) this.seen.clear();
    this.seen.set(key, now);
    return true;
  }
}
const anonymous = new FirstPerMinute();

async function callCommand(cmd: CommandRecord, req: FastifyRequest, reply: FastifyReply, deps: ApiDeps): Promise<unknown> {
  const caller = await authorize(req, reply, deps, cmd.role, cmd.name);
  if (!caller) return reply;
  const args = argsOf(cmd, req, caller);
  const job = typeof args.job === 'string' ? args.job : undefined;
  const write = req.method !== 'GET';
  const redact = deps.redaction.redactorOf(job);
  try {
    const result = await deps.commands.run(cmd.name, args, NO_STREAM);
    if (write) deps.auth.audit({ who: caller.person.name, action: cmd.name, ...(job ? { job } : {}), ok: true, ip: ipOf(req) }, deps.now());
    return reply.send(deps.redaction.json(result ?? null, redact));
  } catch (e) {
    const status = statusOf(e);
    if (status === 500) deps.onError(e);
    if (write) deps.auth.audit({ who: caller.person.name, action: cmd.name, ...(job ? { job } : {}), ok: false, ip: ipOf(req), detail: messageOf(e) }, deps.now());
    return reply.code(status).send({ error: redact(messageOf(e)) });
  }
}

function argsOf(cmd: CommandRecord, req: FastifyRequest, caller: Caller): Record<string, unknown> {
  const extra = req.method === 'GET' ? req.query : req.body;
  const args: Record<string, unknown> = { ...(isRecord(extra) ? extra : {}), ...(req.params as Record<string, string>) };
  delete args.who;
  if (takesWho(cmd)) args.who = webActor(caller.person.name);
  return args;
}

function takesWho(cmd: CommandRecord): boolean {
  return cmd.args instanceof z.ZodObject && 'who' in cmd.args.shape;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A job that is not there is 404; one that moved on 409; a request that does not fit 400; the daemon's own fault 500. */
function statusOf(e: unknown): number {
  if (e instanceof NotFoundError) return 404;
  if (e instanceof ConflictError) return 409;
  if (e instanceof InputError) return 400;
  return 500;
}

/** The caller's mistakes are told as they are; the daemon's own (paths, stacks) stay in its log. */
const messageOf = (e: unknown): string => (e instanceof InputError ? e.message : e instanceof HandlerError ? `internal error in "${e.command}"; the daemon log has the details` : 'internal error; the daemon log has the details');
