/**
 * Gemini CLI's hooks as agent states. From the 0.61.0 bundle (its docs and
 * code; not run against the real CLI here): events BeforeAgent, AfterAgent,
 * BeforeTool, AfterTool, Notification with `notification_type`
 * "ToolPermission" when a tool asks for confirmation; hooks read JSON on
 * stdin, run through bash, and arrays of hooks from every settings scope are
 * concatenated (mergeStrategy "concat").
 *
 * A job gets its own settings through GEMINI_CLI_SYSTEM_SETTINGS_PATH (read
 * by Storage.getSystemSettingsPath): a file in the job's folder holding the
 * system settings that were in force (the variable's file, else
 * /etc/gemini-cli/settings.json) plus our hooks, so nothing else changes and
 * the user's ~/.gemini/settings.json is never written.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { AgentState } from '../core/agent-state.js';
import { mergeSettings } from './claude-settings.js';
import { hooksOn, saidBy, stdinLineCommand } from './hook-command.js';

export const GEMINI_HOOK_SOURCE = 'gemini-hook';
const said = saidBy(GEMINI_HOOK_SOURCE);
export const GEMINI_SYSTEM_SETTINGS_VAR = 'GEMINI_CLI_SYSTEM_SETTINGS_PATH';
const SYSTEM_SETTINGS = '/etc/gemini-cli/settings.json';

const EVENTS = ['BeforeAgent', 'AfterAgent', 'BeforeTool', 'AfterTool', 'Notification'] as const;
const HookInput = z.looseObject({ hook_event_name: z.string(), notification_type: z.string().optional() });
const Settings = z.record(z.string(), z.unknown());

export function geminiHooks(signalsFile: string): Record<string, unknown[]> {
  return hooksOn(EVENTS, { matcher: '*', hooks: [{ type: 'command', name: 'nightshift-signals', command: stdinLineCommand(signalsFile) }] });
}

export function geminiHookState(input: unknown): AgentState | undefined {
  const r = HookInput.safeParse(input);
  if (!r.success) return undefined;
  const event = r.data.hook_event_name;
  if (event === 'BeforeAgent' || event === 'BeforeTool' || event === 'AfterTool') return said('working', event);
  if (event === 'AfterAgent') return said('idle', event);
  if (event === 'Notification' && r.data.notification_type === 'ToolPermission') return said('waiting', 'ToolPermission');
  return undefined;
}

/** Settings files may carry comments (Gemini strips them); whole-line `//` comments are all we take out. */
function parseSettings(text: string, file: string): Record<string, unknown> {
  const r = Settings.safeParse(JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')));
  if (!r.success) throw new Error(`${file} is not a JSON object`);
  return r.data;
}

/**
 * Writes the job's system settings and returns the variable that points
 * Gemini at them, or a problem (then the job runs as it would have).
 */
export async function geminiSettingsEnv(
  env: Readonly<Record<string, string>>,
  paths: { readonly agentSettings: string; readonly agentSignals: string },
): Promise<{ env: Record<string, string>; problem?: string }> {
  const insecure = await insecureAncestor(dirname(paths.agentSettings));
  if (insecure) {
    // Gemini would skip the file and print a security warning into the job's screen (one the risk scan reads as sudo/chmod).
    return { env: {}, problem: `Gemini CLI reads system settings only from folders owned by root and writable by no one else (${insecure}); the job runs without Gemini hook signals` };
  }
  const current = env[GEMINI_SYSTEM_SETTINGS_VAR] || SYSTEM_SETTINGS;
  let theirs: Record<string, unknown> = {};
  try {
    const text = await readFile(current, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? '{}' : Promise.reject(e)));
    theirs = parseSettings(text, current);
  } catch (e) {
    return { env: {}, problem: `cannot read Gemini's system settings ${current} (${(e as Error).message}); the job runs without Gemini hook signals` };
  }
  await writeFile(paths.agentSettings, `${JSON.stringify(mergeSettings(theirs, geminiHooks(paths.agentSignals)), null, 2)}\n`, { mode: 0o600 });
  return { env: { [GEMINI_SYSTEM_SETTINGS_VAR]: paths.agentSettings } };
}

/**
 * The first folder on the way to the job's settings that Gemini 0.61's
 * check refuses (isFileAndDirectorySecureSync in its bundle: every ancestor
 * owned by uid 0 and not writable by group or others), or undefined. In
 * practice only a daemon run by root with its state outside /tmp passes.
 */
async function insecureAncestor(dir: string): Promise<string | undefined> {
  for (let d = dir; ; d = dirname(d)) {
    const s = await stat(d).catch(() => undefined);
    if (!s) return `${d} cannot be read`;
    if (s.uid !== 0) return `${d} is owned by uid ${s.uid}`;
    if ((s.mode & 0o022) !== 0) return `${d} is writable by group or others`;
    if (dirname(d) === d) return undefined;
  }
}
