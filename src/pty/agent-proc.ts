/**
 * Which agent CLI a process runs, read from /proc: a wrapper script
 * (`launch.sh`, `bash -c …`, `env X=1 …`) hides the agent from the
 * command line, but not from the process tree. Every read is async: this
 * runs on the daemon's one thread, once a second per job.
 */
import { readFile, readlink } from 'node:fs/promises';
import { z } from 'zod';
import type { AgentKind } from '../core/agent-events.js';
import { detectAgent } from '../adapters/types.js';
import type { ProcInfo } from './proctree.js';

/** The variables that say where an agent writes its transcript; nothing else of an environment is read. */
export const AGENT_HOME_VARS = ['HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME'] as const;
export type AgentHomeVars = Partial<Record<(typeof AGENT_HOME_VARS)[number], string>>;

/** The native installer's layout (2.1.3xx): `~/.local/share/claude/versions/2.1.332`, whose comm is the version. */
const NATIVE_CLAUDE = /\/claude\/versions\/[^/]+$/;

/** The processes of the terminal's foreground group, in tree order (shallowest first: the agent, not its tool calls). */
export function foregroundGroup(tree: readonly ProcInfo[]): ProcInfo[] {
  const tpgid = tree[0]?.tpgid ?? -1;
  return tpgid > 0 ? tree.filter((p) => p.pgrp === tpgid && p.state !== 'Z') : [];
}

/** The agent a process runs, by its comm, its executable or its command line; undefined for anything else. */
export async function agentOfProcess(p: ProcInfo, procRoot = '/proc'): Promise<AgentKind | undefined> {
  const byComm = detectAgent([p.comm]);
  if (byComm !== 'generic') return byComm;
  const exe = await readlink(`${procRoot}/${p.pid}/exe`).catch(() => '');
  if (NATIVE_CLAUDE.test(exe)) return 'claude';
  const byExe = exe ? detectAgent([exe]) : 'generic';
  if (byExe !== 'generic') return byExe;
  const argv = await readArgv(p.pid, procRoot);
  const byArgv = argv.length ? detectAgent(argv) : 'generic';
  return byArgv === 'generic' ? undefined : byArgv;
}

async function readArgv(pid: number, procRoot: string): Promise<string[]> {
  const raw = await readFile(`${procRoot}/${pid}/cmdline`, 'utf8').catch(() => '');
  return raw.split('\0').filter((a) => a !== '');
}

const homeVarsSchema = z.object(Object.fromEntries(AGENT_HOME_VARS.map((k) => [k, z.string().min(1).optional()]))).strict();

/**
 * The agent process's own HOME and config-dir variables (a wrapper may have
 * changed them), or undefined when its environment cannot be read (gone,
 * another user's). Only AGENT_HOME_VARS are kept; an absent one is absent
 * for the agent too, so it is left out rather than taken from the job.
 */
export async function agentHomeVars(pid: number, procRoot = '/proc'): Promise<AgentHomeVars | undefined> {
  const raw = await readFile(`${procRoot}/${pid}/environ`, 'utf8').catch(() => '');
  if (raw === '') return undefined;
  const picked: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq);
    if (eq > 0 && (AGENT_HOME_VARS as readonly string[]).includes(name) && entry.length > eq + 1) picked[name] = entry.slice(eq + 1);
  }
  return homeVarsSchema.parse(picked) as AgentHomeVars;
}

/** `env` with the agent's own HOME and config dirs in place of the job's (one the agent lacks is dropped). */
export function withAgentVars(env: Readonly<Record<string, string>>, vars: AgentHomeVars): Record<string, string> {
  const out: Record<string, string> = { ...env };
  for (const k of AGENT_HOME_VARS) {
    const v = vars[k];
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}
