/**
 * The command contract, after tmux's cmd-*.c: a command is a record of its
 * name, its arguments (a zod schema), its result's schema, who may call it,
 * where HTTP serves it, what it acts on and how the fleet answers it. What
 * a client, a transport and a handler may know; handlers are bound to the
 * records inside the daemon (src/daemon/command.ts), so a client loads the
 * schemas and nothing of what answers them.
 */
import type { z } from 'zod';
import type { WebRole } from '../people/types.js';
import { InputError } from '../util/errors.js';
import { issuesText } from './wire.js';

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

/** HTTP has no streams: a handler that tries one is told so. */
export const NO_STREAM: CallContext = {
  stream: () => {
    throw new InputError('this command streams; use the WebSocket routes or the CLI');
  },
  onInput: () => undefined,
  onClose: () => undefined,
  closed: false,
};

/**
 * Who may call a command. `local`: only over the control socket (the
 * daemon's own user: submit, attach, stop, tokens); `viewer`: read over
 * HTTP too; `operator`: also change a job over HTTP. A socket caller is
 * the daemon's own user and may call everything.
 */
export type Role = WebRole | 'local';
export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, local: 2 };

/** Where a command is served under /api/v1 (src/web/api.ts); `:job` and the like are taken from its arguments. */
export interface HttpRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
}

/**
 * What a command acts on, found by the table before its handler runs (as
 * tmux's `.target`): `job`, the board's record named by `args.job`;
 * `{ live }`, that job's handle while the daemon runs it, else an error in
 * the verb's own words ("nothing to `live` yet"); `none`, nothing.
 */
export type Target = 'none' | 'job' | { readonly live: string };

/**
 * How `--board` (the fleet, src/fleet/route.ts) answers the command:
 * `board` from the fleet's database, `owner` by the job's owning host,
 * `stream` not at all (it streams from that host), `daemon` not at all
 * (it talks to one daemon). Every record says it, so none is forgotten.
 */
export type FleetRoute = 'board' | 'owner' | 'stream' | 'daemon';

/**
 * One command, typed end to end: its name, its arguments' schema and its
 * result's schema. A handler's return is checked against the result's
 * input by the compiler; a client checks the reply against it at run time.
 */
export interface CommandRecord<N extends string = string, S extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType, T extends Target = Target> {
  readonly name: N;
  /** The arguments as a person would read them, for error messages. */
  readonly usage: string;
  readonly args: S;
  readonly result: R;
  readonly role: Role;
  readonly http?: HttpRoute;
  readonly target: T;
  readonly fleet: FleetRoute;
}

/** Keeps a record's name, schemas and target as types, so the CLI calls it with checked arguments and a typed result. */
export const defineRecord = <N extends string, S extends z.ZodType, R extends z.ZodType, T extends Target>(c: CommandRecord<N, S, R, T>): CommandRecord<N, S, R, T> => c;

/** What a transport calls: the commands it may serve, and running one by name. */
export interface CommandRunner {
  readonly list: readonly CommandRecord[];
  run(name: string, args: unknown, ctx: CallContext): Promise<unknown>;
}

/** A runner a front end can wrap, answering some commands another way (the fleet's web view) with the same checks. */
export interface CommandTable extends CommandRunner {
  /** The arguments as the command's schema reads them; InputError when they or the name are wrong. */
  parse(name: string, args: unknown): unknown;
  /** Runs `fn` as the command `name`: the caller's errors pass as they are, anything else is a HandlerError. */
  guard(name: string, fn: () => unknown): Promise<unknown>;
}

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
export function checkResult(cmd: CommandRecord, reply: unknown): unknown {
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
