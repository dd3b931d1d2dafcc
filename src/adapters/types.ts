/**
 * The adapter seam: one per agent CLI. An adapter finds the transcript a job's
 * agent writes (locate) and turns its lines into the normalised AgentEvent
 * stream (parse). Parsing is pure: the same lines in the same order give the
 * same events with the same ids, so evidence can cite them after a re-read.
 */
import { basename } from 'node:path';
import type { AgentEvent, AgentKind } from '../core/agent-events.js';
import { InputError } from '../util/errors.js';

/** What an adapter needs to know about a job to find its transcript. */
export interface AgentJob {
  /** The agent's working directory. */
  readonly cwd: string;
  /** Epoch ms the job's process started; transcripts created before it belong to someone else. */
  readonly startedAt: number;
  /** The job's environment: HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME say where transcripts go. */
  readonly env: Readonly<Record<string, string>>;
  /** The job's command line: `--session-id <uuid>` and the prompt argument tell two jobs in one cwd apart. */
  readonly argv?: readonly string[];
  /** pid of the job's child; Claude Code maps pid → session in ~/.claude/sessions/<pid>.json. */
  readonly pid?: number;
  /**
   * Transcript paths already taken, shared by all jobs of one supervisor. A
   * follower adds the path it picks and never removes it: a finished job's
   * file must not be picked up by a job that is still looking for its own.
   */
  readonly claimed: Set<string>;
}

/** Events of one line, or why the line could not be read. */
export type ParseResult = AgentEvent[] | { error: string };

export interface AgentAdapter<S = unknown> {
  readonly kind: AgentKind;
  /**
   * The job's transcript if it exists yet (unclaimed, created after the job
   * started), else null. The path is added to job.claimed in the same step as
   * the choice, so two jobs looking at once cannot both take it.
   */
  locate(job: AgentJob): Promise<string | null>;
  /** The folder its transcripts are looked for in (under the job's HOME or config dir), to tell a person where nothing was found. */
  root?(job: AgentJob): string;
  /** Fresh per-file parser state; `source` (the file's basename) prefixes event ids. */
  newState(source: string): S;
  /** One line (without its newline); lineNo counts from 1. Never throws. */
  parse(line: string, lineNo: number, state: S): ParseResult;
  /**
   * The transcript ends here: the agent's process is gone, or a stored file
   * was read to its end. A format with no end-of-turn marker owes the end of
   * its last turn, or nothing would judge the agent's final answer.
   */
  finish?(state: S): AgentEvent[];
}

const KINDS: readonly AgentKind[] = ['claude', 'codex', 'gemini', 'generic'];

/** npm package of each agent CLI; `node …/<package>/…` runs that agent. */
const PACKAGES: ReadonlyArray<readonly [string, AgentKind]> = [
  ['@anthropic-ai/claude-code', 'claude'],
  ['@openai/codex', 'codex'],
  ['@google/gemini-cli', 'gemini'],
];

/** Command basenames (as installed by the packages above). */
const COMMANDS: Readonly<Record<string, AgentKind>> = { claude: 'claude', codex: 'codex', gemini: 'gemini' };

/** Programs that run the next argument: we look through them. */
const RUNNERS = /^(?:node|nodejs|bun|deno|npx|pnpx|bunx|env|exec|nice|nohup|timeout|stdbuf)(?:\d+(?:\.\d+)*)?(?:\.exe)?$/;

/** A name from `--agent`/config, or undefined/`auto` to detect. */
export function parseAgentKind(name: string): AgentKind {
  const n = name.trim().toLowerCase();
  if ((KINDS as readonly string[]).includes(n)) return n as AgentKind;
  throw new InputError(`unknown agent ${JSON.stringify(name)}; expected one of ${KINDS.join(', ')} or auto`);
}

/**
 * Which agent a command line runs: by the command's basename (`claude`,
 * `codex`, `gemini`) or, through node/npx/env and similar runners, by the
 * script path or package name. `override` (a name, not `auto`) wins.
 */
export function detectAgent(argv: readonly string[], override?: string): AgentKind {
  if (override !== undefined && override.trim().toLowerCase() !== 'auto') return parseAgentKind(override);
  const at = agentWordIndex(argv);
  return at < 0 ? 'generic' : kindOfWord(argv[at]!)!;
}

/** Where the word naming the agent stands (`…/cli.js`, `codex`), or -1: the agent's own flags come after it. */
export function agentWordIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    if (kindOfWord(argv[i]!) !== undefined) return i;
    if (!isPassThrough(argv[i]!)) break;
  }
  return -1;
}

function kindOfWord(arg: string): AgentKind | undefined {
  for (const [pkg, kind] of PACKAGES) {
    // A path through node_modules, or a package spec for npx (`@openai/codex@0.50`).
    if (arg.includes(`/${pkg}/`) || arg === pkg || arg.startsWith(`${pkg}@`)) return kind;
  }
  const base = basename(arg).replace(/\.(?:exe|cmd|js|mjs|cjs)$/i, '');
  return COMMANDS[base];
}

/** Runners, their flags and `VAR=value` assignments come before the real command. */
function isPassThrough(arg: string): boolean {
  if (RUNNERS.test(basename(arg))) return true;
  if (arg.startsWith('-')) return true;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) return true;
  // `timeout 10m claude`: a duration argument of a runner.
  return /^\d+(?:\.\d+)?[smhd]?$/.test(arg);
}

/** The value after `--flag` or in `--flag=value`, if present. */
export function flagValue(argv: readonly string[] | undefined, ...flags: string[]): string | undefined {
  if (!argv) return undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const f of flags) {
      if (a === f && i + 1 < argv.length) return argv[i + 1];
      if (a.startsWith(`${f}=`)) return a.slice(f.length + 1);
    }
  }
  return undefined;
}

/** Builds event ids `<source>:<line>:<n>` for the events of one line. */
export function idMaker(source: string, lineNo: number): () => string {
  let n = 0;
  return () => `${source}:${lineNo}:${n++}`;
}
