/**
 * The daemon's side of a command: a handler bound to its record
 * (src/api/commands.ts), and the table that runs it. The table is
 * transport-neutral: the control socket, the HTTP API and the fleet link
 * call it. It checks the arguments and finds the record's target before
 * the handler runs. Lookup is by Map, so names like `__proto__` or
 * `constructor` are unknown commands, not Object.prototype members.
 */
import type { z } from 'zod';
import { HandlerError, type CallContext, type CommandRecord, type CommandTable, type Target } from '../api/command.js';
import type { CommandName, RecordOf } from '../api/commands.js';
import type { CommandHost } from '../api/host.js';
import type { JobHandle } from '../api/job-handle.js';
import { issuesText } from '../api/protocol.js';
import type { JobRecord } from '../board/types.js';
import { InputError } from '../util/errors.js';
import { reasonText } from '../api/reason-text.js';

/** What the table found for a record's target: the job's record, and its handle for a live target. */
export type Resolved<T extends Target> = T extends 'job' ? { readonly rec: JobRecord } : T extends { live: string } ? { readonly rec: JobRecord; readonly live: JobHandle } : Record<string, never>;

/** A handler: its arguments as the schema reads them, its target found, its return checked against the result's input by the compiler. */
export type Handler<C extends CommandRecord> = (h: CommandHost, args: z.output<C['args']>, on: Resolved<C['target']>, ctx: CallContext) => Promise<z.input<C['result']>> | z.input<C['result']>;

/** One handler per record, by name: a record without one does not compile. */
export type Handlers = { readonly [K in CommandName]: Handler<RecordOf<K>> };

export interface DaemonCommand extends CommandRecord {
  handler(h: CommandHost, args: unknown, on: unknown, ctx: CallContext): unknown;
}

/** Joins each record to its handler. */
export function bind(records: readonly CommandRecord[], handlers: Handlers): DaemonCommand[] {
  return records.map((r) => ({ ...r, handler: handlers[r.name as CommandName] as DaemonCommand['handler'] }));
}

/** The job's PTY inside the daemon, or an error that says why there is none (`what`: "attach to", "send to"). */
export function liveJob(h: CommandHost, rec: JobRecord, what: string): JobHandle {
  const job = h.live(rec.id);
  if (job) return job;
  if (rec.state === 'queued') throw new InputError(`job ${rec.name} is queued (${reasonText(rec.reason)}); it has not started, nothing to ${what} yet`);
  if (rec.state === 'done') throw new InputError(`job ${rec.name} is done (${reasonText(rec.reason)}); nothing to ${what}`);
  // The board says running, the PTY is still being set up (or just went).
  throw new InputError(`job ${rec.name} is ${rec.state} but not live in the daemon yet; try again in a moment`);
}

/** The record's target for these arguments: NotFoundError for a job that is none, InputError for one that is not live. */
function resolve(h: CommandHost, target: Target, args: unknown): unknown {
  if (target === 'none') return {};
  const rec = h.board.require((args as { job: string }).job);
  return target === 'job' ? { rec } : { rec, live: liveJob(h, rec, target.live) };
}

/** The commands bound to one daemon; what a transport calls. */
export class Commands implements CommandTable {
  private readonly table: ReadonlyMap<string, DaemonCommand>;

  constructor(
    list: readonly DaemonCommand[],
    private readonly host: () => CommandHost,
  ) {
    this.table = new Map(list.map((c) => [c.name, c]));
  }

  get names(): string[] {
    return [...this.table.keys()];
  }

  /** The commands a front end serves (the HTTP API takes those with a route). */
  get list(): readonly DaemonCommand[] {
    return [...this.table.values()];
  }

  /** Runs `name`: InputError for an unknown command, bad arguments or a target that is not there, HandlerError when the handler breaks. */
  async run(name: string, args: unknown, ctx: CallContext): Promise<unknown> {
    const { cmd, parsed } = this.checked(name, args);
    const h = this.host();
    try {
      return await this.guard(name, () => cmd.handler(h, parsed, resolve(h, cmd.target, parsed), ctx));
    } finally {
      // The board is written behind (write-behind.ts): a reply waits until what it reports is on disk.
      await h.durable();
    }
  }

  parse(name: string, args: unknown): unknown {
    return this.checked(name, args).parsed;
  }

  /** The command and its arguments as its schema reads them; InputError when either is wrong. */
  private checked(name: string, args: unknown): { cmd: DaemonCommand; parsed: unknown } {
    const cmd = this.table.get(name);
    if (!cmd) throw new InputError(`unknown command ${JSON.stringify(name)}; known: ${this.names.join(', ')}`);
    const parsed = cmd.args.safeParse(args ?? {});
    if (!parsed.success) throw new InputError(`bad arguments for "${name}": ${issuesText(parsed.error)} (usage: ${[name, cmd.usage].filter(Boolean).join(' ')})`);
    return { cmd, parsed: parsed.data };
  }

  /** The caller's errors pass as they are; anything else is this handler's fault. */
  async guard(name: string, fn: () => unknown): Promise<unknown> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new HandlerError(name, e);
    }
  }
}
