/**
 * A fleet daemon's web view serves the fleet, not just its own jobs: the
 * commands that read or act on a job go through the fleet board (route.ts)
 * after their arguments are checked by the same schemas as everywhere;
 * the rest (people, tokens, status) stay this daemon's. A job of this host
 * is served here directly, without a round trip through the database.
 */
import type { CallContext, CommandRecord, CommandTable } from '../api/command.js';
import type { FleetDb } from './db.js';
import { callFleet, FLEET_COMMANDS } from './route.js';

export class FleetCommands implements CommandTable {
  constructor(
    /** This daemon's own table: what the fleet does not answer, and this host's jobs. */
    private readonly own: CommandTable,
    private readonly db: FleetDb,
    private readonly self: string,
  ) {}

  get list(): readonly CommandRecord[] {
    return this.own.list;
  }

  parse(name: string, args: unknown): unknown {
    return this.own.parse(name, args);
  }

  guard(name: string, fn: () => unknown): Promise<unknown> {
    return this.own.guard(name, fn);
  }

  async run(name: string, args: unknown, ctx: CallContext): Promise<unknown> {
    if (!FLEET_COMMANDS.has(name)) return this.own.run(name, args, ctx);
    const parsed = this.own.parse(name, args);
    const local = { name: this.self, run: (cmd: string, a: Record<string, unknown>) => this.own.run(cmd, a, ctx) };
    return this.own.guard(name, () => callFleet(this.db, name, parsed as Record<string, unknown>, { local }));
  }
}
