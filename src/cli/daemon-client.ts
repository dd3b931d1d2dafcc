import { userInfo } from 'node:os';
/** Shared by the verbs that talk to the daemon: --state, and calling it. */
import type { Command } from 'commander';
import { checkReply } from '../api/check-reply.js';
import type { CommandArgs, CommandName, CommandResult } from '../api/commands.js';
import { call, type CallOptions } from '../daemon/client.js';
import { STATE_HELP, stateDirFrom } from './common.js';
import type { FleetDb } from '../fleet/db.js';
import { parseBoardUrl } from '../fleet/board-url.js';

/** Opens the fleet board for one call and closes it after. The PostgreSQL client is loaded only then: most calls go to a socket. */
export async function withFleet<T>(url: string, fn: (db: FleetDb) => Promise<T>): Promise<T> {
  const { FleetDb } = await import('../fleet/db.js');
  const db = FleetDb.open(url, { max: 2, application: 'nightshift-cli' });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export interface StateFlag {
  state?: string;
  board?: string;
}

export function addStateFlag(cmd: Command): Command {
  return cmd
    .option('--state <dir>', `the daemon's ${STATE_HELP}`)
    .option('--board <url>', 'a fleet board (postgres://…; default: $NIGHTSHIFT_BOARD): work through the database, no daemon socket needed');
}

/** The fleet board to use: --board, else NIGHTSHIFT_BOARD unless --state names one daemon. */
export function boardUrlOf(f: StateFlag): string | null {
  if (f.board !== undefined) return parseBoardUrl(f.board, '--board');
  const env = process.env.NIGHTSHIFT_BOARD;
  if (env && f.state === undefined) return parseBoardUrl(env, 'NIGHTSHIFT_BOARD');
  return null;
}

export function stateDirOf(f: StateFlag): string {
  return stateDirFrom(f.state);
}

/**
 * Calls a daemon command by its name in the daemon's one command table
 * (src/api/commands.ts): arguments typed by its schema here, checked by
 * the daemon there; the reply checked against the command's result schema
 * (a mismatch is a ResultMismatchError naming the command).
 */
export async function callDaemon<K extends CommandName>(f: StateFlag, cmd: K, args: CommandArgs<K>, o: CallOptions = {}): Promise<CommandResult<K>> {
  const board = boardUrlOf(f);
  const reply = board
    ? await withFleet(board, async (db) => (await import('../fleet/route.js')).callFleet(db, cmd, args as Record<string, unknown>))
    : await call(stateDirOf(f), cmd, args as Record<string, unknown>, o);
  return checkReply(cmd, reply);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** Who acts, for `human:<user>` in evidence: NIGHTSHIFT_USER, else the login name. */
export function currentUser(): string {
  return process.env.NIGHTSHIFT_USER ?? process.env.USER ?? userInfo().username;
}
