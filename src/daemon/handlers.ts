/** The daemon's commands bound to it, for the control socket (the table itself is commands.ts). */
import { Commands } from './command.js';
import { COMMAND_LIST } from './commands.js';
import type { Daemon } from './daemon.js';

export function handlers(daemon: () => Daemon): Commands {
  return new Commands(COMMAND_LIST, daemon);
}
