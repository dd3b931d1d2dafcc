/**
 * A Claude job's own hooks, through Claude's documented `--settings <file>`:
 * the file lives in the job's folder, so the user's ~/.claude/settings.json
 * (and the project's) are never written. Claude adds hooks from every
 * settings source together, so the user's own hooks still run.
 *
 * Claude reads one `--settings`; a user who passes their own gets it merged
 * into ours (their keys kept, their hooks before ours) and their flag taken
 * out, rather than dropped. When theirs cannot be read, their command line
 * is left alone and the job has no hooks (Claude says what is wrong with it).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { claudeHooks } from './claude-hooks.js';

const Settings = z.record(z.string(), z.unknown());
const HookGroups = z.record(z.string(), z.array(z.unknown()));

export interface ArgvEdit {
  readonly args: readonly string[];
  /** Why the job runs without the agent's signals, when it does. */
  readonly problem?: string;
}

/** `--settings X` / `--settings=X` among the agent's own flags (after its command word, before `--`). */
function findSettings(args: readonly string[], from: number): { at: number; width: number; value: string } | undefined {
  for (let i = from; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (a === '--settings' && i + 1 < args.length) return { at: i, width: 2, value: args[i + 1]! };
    if (a.startsWith('--settings=')) return { at: i, width: 1, value: a.slice('--settings='.length) };
  }
  return undefined;
}

/** The user's settings: a JSON text or a file (relative to the job's cwd), as Claude's flag takes either. */
async function readTheirs(value: string, cwd: string): Promise<Record<string, unknown>> {
  const text = value.trimStart().startsWith('{') ? value : await readFile(resolve(cwd, value), 'utf8');
  const parsed = Settings.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error('not a JSON object');
  return parsed.data;
}

/** Their hooks first (they are theirs to order), ours after, per event. */
export function mergeSettings(theirs: Record<string, unknown>, ours: Record<string, unknown[]>): Record<string, unknown> {
  const given = HookGroups.safeParse(theirs.hooks ?? {});
  const hooks: Record<string, unknown[]> = given.success ? { ...given.data } : {};
  for (const [event, groups] of Object.entries(ours)) hooks[event] = [...(hooks[event] ?? []), ...groups];
  return { ...theirs, hooks };
}

/**
 * Writes the job's settings file and returns the args with `--settings <file>`
 * right after the agent's command word (`word` indexes `args`).
 */
export async function claudeSettingsArgs(
  args: readonly string[],
  word: number,
  paths: { readonly agentSettings: string; readonly agentSignals: string },
  cwd: string,
): Promise<ArgvEdit> {
  const found = findSettings(args, word + 1);
  let theirs: Record<string, unknown> = {};
  if (found) {
    try {
      theirs = await readTheirs(found.value, cwd);
    } catch (e) {
      return { args, problem: `cannot read the job's own --settings ${JSON.stringify(found.value)} (${(e as Error).message}); the job runs without Claude hook signals` };
    }
  }
  const settings = mergeSettings(theirs, claudeHooks(paths.agentSignals));
  await writeFile(paths.agentSettings, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  const rest = found ? [...args.slice(0, found.at), ...args.slice(found.at + found.width)] : [...args];
  return { args: [...rest.slice(0, word + 1), '--settings', paths.agentSettings, ...rest.slice(word + 1)] };
}
