/**
 * A daemon command, after tmux's cmd-*.c: a record of its name, its
 * arguments (a zod schema), its usage and its handler. The table is
 * transport-neutral: the control socket uses it today, an HTTP front end
 * and the CLI can share it. Lookup is by Map, so names like `__proto__`
 * or `constructor` are unknown commands, not Object.prototype members.
 */
import type { z } from 'zod';
import { InputError } from '../util/errors.js';
import type { Daemon } from './daemon.js';
import { issuesText } from './protocol.js';

/** What a handler may do beyond returning its result: stream (attach, logs -f). */
export interface CallContext {
  /** Sends a chunk of a streamed result. */
  stream(data: string): void;
  /** Input the client sends into an open stream (attach). */
  onInput(cb: (data: string) => void): void;
  /** The client went away. */
  onClose(cb: () => void): void;
  readonly closed: boolean;
}

/**
 * Who may call a command. `local`: only over the control socket (the
 * daemon's own user: submit, attach, stop, tokens); `viewer`: read over
 * HTTP too; `operator`: also change a job over HTTP. A socket caller is
 * the daemon's own user and may call everything.
 */
export type Role = 'viewer' | 'operator' | 'local';
export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, local: 2 };

/** Where a command is served under /api/v1 (src/web/api.ts); `:job` and the like are taken from its arguments. */
export interface HttpRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
}

/**
 * One command, typed end to end: its name, its arguments' schema and its
 * result's schema. The handler's return is checked against the result's
 * input by the compiler; a client checks the reply against it at run time.
 */
export interface TypedCommand<N extends string, S extends z.ZodType, R extends z.ZodType> {
  readonly name: N;
  /** The arguments as a person would read them, for error messages. */
  readonly usage: string;
  readonly args: S;
  readonly result: R;
  readonly role: Role;
  readonly http?: HttpRoute;
  // Method syntax: a table of different commands is then one list of DaemonCommand.
  handler(d: Daemon, args: z.output<S>, ctx: CallContext): Promise<z.input<R>> | z.input<R>;
}

export type DaemonCommand = TypedCommand<string, z.ZodType, z.ZodType>;

/** Keeps a command's name and schema types, so the CLI calls it with checked arguments and a typed result. */
export const defineCommand = <N extends string, S extends z.ZodType, R extends z.ZodType>(c: TypedCommand<N, S, R>): TypedCommand<N, S, R> => c;

/** A reply that does not match its command's result schema: a daemon and CLI of different builds, or a handler bug. */
export class ResultMismatchError extends Error {
  constructor(
    readonly command: string,
    detail: string,
  ) {
    super(`the daemon's reply to "${command}" does not match its result schema (${detail}); is the daemon running this same nightshift build?`);
    this.name = 'ResultMismatchError';
  }
}

/**
 * Checks a reply against the command's result schema and hands back the
 * reply itself, not zod's copy: zod rebuilds objects in its own key order
 * and drops keys a loose schema does not name, and `--json` must print
 * exactly what the daemon sent. Sound because result schemas never
 * transform (results.ts).
 */
export function checkResult(cmd: DaemonCommand, reply: unknown): unknown {
  const r = cmd.result.safeParse(reply);
  if (!r.success) throw new ResultMismatchError(cmd.name, issuesText(r.error));
  return reply;
}

/** A handler failed for a reason that is not the caller's: says which handler, keeps the cause for the log. */
export class HandlerError extends Error {
  constructor(
    readonly command: string,
    cause: unknown,
  ) {
    super(`internal error in handler "${command}": ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'HandlerError';
  }
}

/** The commands bound to one daemon; what a transport calls. */
export class Commands {
  private readonly table: ReadonlyMap<string, DaemonCommand>;

  constructor(
    list: readonly DaemonCommand[],
    private readonly daemon: () => Daemon,
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

  /** Runs `name`: InputError for an unknown command or bad arguments, HandlerError when the handler breaks. */
  async run(name: string, args: unknown, ctx: CallContext): Promise<unknown> {
    const { cmd, parsed } = this.checked(name, args);
    try {
      return await this.guard(name, () => cmd.handler(this.daemon(), parsed, ctx));
    } finally {
      // The board is written behind (write-behind.ts): a reply waits until what it reports is on disk.
      await this.daemon().durable();
    }
  }

  /** The command and its arguments as its schema reads them; InputError when either is wrong. */
  protected checked(name: string, args: unknown): { cmd: DaemonCommand; parsed: unknown } {
    const cmd = this.table.get(name);
    if (!cmd) throw new InputError(`unknown command ${JSON.stringify(name)}; known: ${this.names.join(', ')}`);
    const parsed = cmd.args.safeParse(args ?? {});
    if (!parsed.success) throw new InputError(`bad arguments for "${name}": ${issuesText(parsed.error)} (usage: ${[name, cmd.usage].filter(Boolean).join(' ')})`);
    return { cmd, parsed: parsed.data };
  }

  /** The caller's errors pass as they are; anything else is this handler's fault. */
  protected async guard(name: string, fn: () => unknown): Promise<unknown> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new HandlerError(name, e);
    }
  }
}
