/**
 * The client's check of a daemon's reply against its command's result
 * schema. A compiled check (compiled-checks.ts) that passes is enough;
 * otherwise zod decides and words the mismatch, so a reply is never
 * refused but by the schema itself, in its own words.
 */
import { checkResult } from './command.js';
import type { CommandName, CommandResult } from './commands.js';
import { COMPILED_CHECKS } from './compiled-checks.js';

/** The reply itself when it matches `cmd`'s result schema; else a ResultMismatchError naming the command and the field. */
export async function checkReply<K extends CommandName>(cmd: K, reply: unknown): Promise<CommandResult<K>> {
  if (COMPILED_CHECKS?.[cmd]?.(reply)) return reply as CommandResult<K>;
  const { COMMAND_LIST } = await import('./commands.js');
  return checkResult(COMMAND_LIST.find((c) => c.name === cmd)!, reply) as CommandResult<K>;
}
