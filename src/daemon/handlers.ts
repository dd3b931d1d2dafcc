/** The daemon's commands bound to it, for the control socket (the table itself is commands.ts). */
import type { CommandHost } from '../api/host.js';
import { Commands } from './command.js';
import { COMMAND_TABLE } from './commands.js';

export function handlers(host: () => CommandHost): Commands {
  return new Commands(COMMAND_TABLE, host);
}
