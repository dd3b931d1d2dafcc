/**
 * A fleet daemon's web view serves the fleet, not just its own jobs: the
 * commands that read or act on a job go through the fleet board (route.ts)
 * after their arguments are checked by the same schemas as everywhere;
 * the rest (people, tokens, status) stay this daemon's. A job of this host
 * is served here directly, without a round trip through the database.
 */
import type { CallContext } from '../api/command.js';
import type { CommandHost } from '../api/host.js';
import { Commands, type DaemonCommand } from '../daemon/command.js';
import type { FleetDb } from './db.js';
import { callFleet, FLEET_COMMANDS } from './route.js';

export class FleetCommands extends Commands {
  constructor(
    list: readonly DaemonCommand[],
    host: () => CommandHost,
    private readonly db: FleetDb,
    private readonly self: string,
  ) {
    super(list, host);
  }

  override async run(name: string, args: unknown, ctx: CallContext): Promise<unknown> {
    if (!FLEET_COMMANDS.has(name)) return super.run(name, args, ctx);
    const { parsed } = this.checked(name, args);
    const local = { name: this.self, run: (cmd: string, a: Record<string, unknown>) => super.run(cmd, a, ctx) };
    return this.guard(name, () => callFleet(this.db, name, parsed as Record<string, unknown>, { local }));
  }
}
