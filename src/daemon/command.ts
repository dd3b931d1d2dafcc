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

/** One command, typed end to end: its name, its arguments' schema and what its handler returns. */
export interface TypedCommand<N extends string, S extends z.ZodType, R> {
  readonly name: N;
  /** The arguments as a person would read them, for error messages. */
  readonly usage: string;
  readonly args: S;
  // Method syntax: a table of different commands is then one list of DaemonCommand.
  handler(d: Daemon, args: z.output<S>, ctx: CallContext): Promise<R> | R;
}

export type DaemonCommand = TypedCommand<string, z.ZodType, unknown>;

/** Keeps a command's name, schema and result types, so the CLI calls it with checked arguments and a typed result. */
export const defineCommand = <N extends string, S extends z.ZodType, R>(c: TypedCommand<N, S, R>): TypedCommand<N, S, R> => c;

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

  /** Runs `name`: InputError for an unknown command or bad arguments, HandlerError when the handler breaks. */
  async run(name: string, args: unknown, ctx: CallContext): Promise<unknown> {
    const cmd = this.table.get(name);
    if (!cmd) throw new InputError(`unknown command ${JSON.stringify(name)}; known: ${this.names.join(', ')}`);
    const parsed = cmd.args.safeParse(args ?? {});
    if (!parsed.success) throw new InputError(`bad arguments for "${name}": ${issuesText(parsed.error)} (usage: ${[name, cmd.usage].filter(Boolean).join(' ')})`);
    try {
      return await cmd.handler(this.daemon(), parsed.data, ctx);
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new HandlerError(name, e);
    }
  }
}
