/**
 * Codex's `notify` program, set for one job with a `-c notify=[…]` override
 * on its command line (config.toml is never written). Codex 0.171.0 calls it
 * with one JSON argument at the end of every turn:
 *   {"type":"agent-turn-complete","thread-id":…,"turn-id":…,"cwd":…,
 *    "client":"codex-tui","input-messages":[…],"last-assistant-message":…}
 * — also for its own side thread that writes the session title, which is
 * harmless: an idle ends only an agent-waiting block, and Codex says no
 * waiting. Its rollout records no approval event (checked on 0.171.0: no
 * event_msg between the call and the dialog's answer), so Codex has no
 * `waiting` here; its dialog is the rules' and the dialog detector's.
 *
 * A notify program of the user's own (a top-level `notify = [...]` in
 * $CODEX_HOME/config.toml) still runs: ours records the JSON, then runs theirs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentState } from '../core/agent-state.js';
import { homeOf } from '../adapters/locate.js';
import type { ArgvEdit } from './claude-settings.js';
import { argLineCommand, saidBy } from './hook-command.js';

export const CODEX_NOTIFY_SOURCE = 'codex-notify';

const Notification = z.looseObject({ type: z.string() });
const Argv = z.array(z.string());

export function codexNotifyState(input: unknown): AgentState | undefined {
  const r = Notification.safeParse(input);
  if (!r.success || r.data.type !== 'agent-turn-complete') return undefined;
  return saidBy(CODEX_NOTIFY_SOURCE)('idle', r.data.type);
}

/** A `-c notify=…` (or `--config notify=…`) the user gave this job themselves. */
function ownOverride(args: readonly string[]): boolean {
  return args.some((a, i) => /^notify\s*=/.test(a) && (args[i - 1] === '-c' || args[i - 1] === '--config'));
}

/**
 * The user's notify program from config.toml: a one-line array before the
 * first table. Undefined when there is none; throws when there is one we
 * cannot read (we would drop it).
 */
export async function userNotify(env: Readonly<Record<string, string>>): Promise<string[] | undefined> {
  const file = join(env.CODEX_HOME || join(homeOf(env), '.codex'), 'config.toml');
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) break;
    const m = /^\s*notify\s*=\s*(.*?)\s*(?:#.*)?$/.exec(line);
    if (!m) continue;
    const parsed = Argv.safeParse(tryJson(m[1]!));
    if (!parsed.success) throw new Error(`${file}: notify = ${m[1]} is not a one-line array of "strings"`);
    return parsed.data;
  }
  return undefined;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `-c notify=[…]` right after the codex command word (`word` indexes `args`; -1: the command itself). */
export async function codexNotifyArgs(args: readonly string[], word: number, signalsFile: string, env: Readonly<Record<string, string>>): Promise<ArgvEdit> {
  if (ownOverride(args)) return { args, problem: 'the job sets its own -c notify=…; it runs without Codex notify signals' };
  let chain: string[];
  try {
    chain = (await userNotify(env)) ?? [];
  } catch (e) {
    return { args, problem: `${(e as Error).message}; the job runs without Codex notify signals` };
  }
  // TOML's basic strings take JSON's escapes, so a JSON array is a TOML array.
  const value = `notify=${JSON.stringify(argLineCommand(signalsFile, chain))}`;
  return { args: [...args.slice(0, word + 1), '-c', value, ...args.slice(word + 1)] };
}
