/**
 * Wires a job's agent to say what it does: before the start, the
 * job's own command line or environment (Claude `--settings`, Codex
 * `-c notify=`, Gemini's system settings variable), all pointing into the
 * job's folder; after it, the signals file followed and, for Claude, its
 * session file polled. Nothing here answers anything: the states go to the
 * watchdog, which may only escalate sooner on them.
 */
import { closeSync, openSync } from 'node:fs';
import type { AgentKind } from '../core/agent-events.js';
import type { AgentState } from '../core/agent-state.js';
import { agentWordIndex } from '../adapters/types.js';
import { agentVersion } from '../adapters/agent-version.js';
import type { LineTail } from '../events/line-tail.js';
import { claudeHookState } from './claude-hooks.js';
import { claudeSettingsArgs } from './claude-settings.js';
import { SessionWatch, sessionStatusTrusted } from './claude-session.js';
import { codexNotifyArgs, codexNotifyState } from './codex-notify.js';
import { geminiHookState, geminiSettingsEnv } from './gemini-hooks.js';
import { followSignals, type StateOf } from './signal-file.js';

export interface SignalPaths {
  readonly agentSignals: string;
  readonly agentSettings: string;
}

export interface LaunchInput {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** What the job starts with: maybe other args and variables, and how to read what they make the agent say. */
export interface AgentLaunch {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly stateOf: StateOf | undefined;
  readonly problem: string | undefined;
}

const STATE_OF: Partial<Record<AgentKind, StateOf>> = { claude: claudeHookState, codex: codexNotifyState, gemini: geminiHookState };

/** Never rejects: a job whose agent cannot be wired runs as the user wrote it, with the reason in its log. */
export async function prepareLaunch(kind: AgentKind | undefined, spec: LaunchInput, paths: SignalPaths): Promise<AgentLaunch> {
  const plain: AgentLaunch = { args: spec.args, env: spec.env, stateOf: undefined, problem: undefined };
  if (kind === undefined || kind === 'generic') return plain;
  return wire(kind, spec, paths).catch((e: unknown) => ({ ...plain, problem: `cannot wire the ${kind} signals: ${(e as Error).message}` }));
}

async function wire(kind: AgentKind, spec: LaunchInput, paths: SignalPaths): Promise<AgentLaunch> {
  const plain: AgentLaunch = { args: spec.args, env: spec.env, stateOf: undefined, problem: undefined };
  // Index in args; -1 when the command itself is the agent's.
  const word = agentWordIndex([spec.command, ...spec.args]) - 1;
  if (word < -1) return { ...plain, problem: `cannot tell where the ${kind} command starts in the command line; the job runs without its signals` };
  const edit =
    kind === 'claude'
      ? { ...(await claudeSettingsArgs(spec.args, word, paths, spec.cwd)), env: {} }
      : kind === 'codex'
        ? { ...(await codexNotifyArgs(spec.args, word, paths.agentSignals, spec.env)), env: {} }
        : { args: spec.args, ...(await geminiSettingsEnv(spec.env, paths)) };
  if (edit.problem !== undefined) return { ...plain, problem: edit.problem };
  // Private from the start, as the job's other files: the hooks append the agent's tool inputs.
  closeSync(openSync(paths.agentSignals, 'a', 0o600));
  return { args: edit.args, env: { ...spec.env, ...edit.env }, stateOf: STATE_OF[kind], problem: undefined };
}

export interface SignalHost {
  state(s: AgentState): void;
  problem(message: string): void;
  isClosed(): boolean;
}

/** The running side: follows the signals file; polls Claude's session file once its version is one checked. */
export class AgentSignals {
  private tail: LineTail | undefined;
  private session: SessionWatch | undefined;

  private constructor(private readonly host: SignalHost) {}

  static async start(kind: AgentKind, launch: AgentLaunch, spec: LaunchInput, paths: SignalPaths, pid: number, host: SignalHost): Promise<AgentSignals> {
    const s = new AgentSignals(host);
    if (launch.stateOf) s.tail = await followSignals(paths.agentSignals, launch.stateOf, { state: (x) => host.state(x), problem: (m) => host.problem(m) });
    if (kind === 'claude') void s.watchSession(spec, pid);
    return s;
  }

  private async watchSession(spec: LaunchInput, pid: number): Promise<void> {
    const version = await agentVersion([spec.command, ...spec.args], { env: spec.env, cwd: spec.cwd }).catch(() => undefined);
    if (this.host.isClosed() || !sessionStatusTrusted(version)) return;
    this.session = new SessionWatch({ env: spec.env, pid, hint: (x) => this.host.state(x) });
  }

  async close(): Promise<void> {
    this.session?.stop();
    await this.tail?.close();
  }
}
