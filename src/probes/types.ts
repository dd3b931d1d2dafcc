/**
 * Shapes shared by the trajectory probes. Probes are pure functions of the
 * normalised event stream (src/core/agent-events.ts), a profile and a small
 * context the caller measures (git); they never read files or clocks, so a
 * recorded trajectory gives the same verdicts on every replay.
 */
import type { AgentEvent, ToolRole } from '../core/agent-events.js';

export type Severity = 'info' | 'warn' | 'critical';

export interface Verdict {
  readonly probe: string;
  readonly severity: Severity;
  readonly message: string;
  /** Stable event ids (never list positions), oldest first. */
  readonly evidence: readonly string[];
  /**
   * The turn the verdict is about: its turn-start id, or its first event's id
   * when the stream began mid-turn. null for job-wide verdicts (budget).
   */
  readonly turn: string | null;
}

/** Numbers of a profile; see rules/probes.yaml for what each means and why. */
export interface Thresholds {
  /** repeated-action: how many recent tool calls to look at. */
  readonly window: number;
  /** repeated-action: identical calls (same call, same outcome) in the window that count as a loop. */
  readonly repeat: number;
  /** repeated-failure: the same tool failing the same way this many times in a row. */
  readonly failRepeat: number;
  /** no-progress: consecutive tool results that add nothing new. */
  readonly noProgress: number;
  /** alternation: length of an A/B/A/B… run of tool calls. */
  readonly alternation: number;
  /** budget-overrun: tool calls in the job. */
  readonly maxSteps: number;
  /** budget-overrun: input (cache reads included) + output tokens in the job. */
  readonly maxTokens: number;
}

/** A shell command (one segment of a command line) and what it does. */
export interface CommandRule {
  readonly match: RegExp;
  readonly role: ToolRole;
  /** Changes the world outside the working tree's files (commit, push, PR): counts for claims, not as a file write. */
  readonly sideEffect: boolean;
}

/** A tool name pattern (MCP and other tools not listed by name). */
export interface ToolPattern {
  readonly match: RegExp;
  readonly role: ToolRole;
  readonly sideEffect: boolean;
}

export interface AnnounceRules {
  /** Patterns that trigger on their own (matched against each sentence of the closing paragraph). */
  readonly english: readonly RegExp[];
  /** Softer announcements ("we should review…"); only in a turn that already called a tool. */
  readonly afterTools: readonly RegExp[];
  /** Trigger word + action verb; only in a turn that already called a tool. */
  readonly chinese: readonly RegExp[];
  /** Sentences that look like an announcement but are courtesy or an offer ("let me know"). */
  readonly except: readonly RegExp[];
  /** A reply whose last character is a colon announces (any language, any length). */
  readonly trailingColon: boolean;
  /** Longer replies are real answers, not announcements (the colon rule still applies). */
  readonly maxChars: number;
}

export interface ClaimRules {
  /** A sentence claiming the work is done. */
  readonly patterns: readonly RegExp[];
  /** A sentence saying a check (tests, build, linter) ran. */
  readonly checks: readonly RegExp[];
  /** A check sentence that says the check passed. */
  readonly passed: RegExp | null;
  /** A claim sentence that also matches one of these is not a claim ("not fixed yet"). */
  readonly negations: readonly RegExp[];
}

/** Shared by all profiles of one config file. */
export interface ProbeRules {
  /** Exact tool name → role. */
  readonly tools: ReadonlyMap<string, ToolRole>;
  /** For names not in `tools`, first match wins. */
  readonly toolPatterns: readonly ToolPattern[];
  /** Argument keys holding a shell tool's command line, in order of preference. */
  readonly commandKeys: readonly string[];
  /** For each segment of a shell command line, first match wins. */
  readonly commands: readonly CommandRule[];
  readonly announce: AnnounceRules;
  readonly claims: ClaimRules;
}

/**
 * What binds an escalation: `interrupt` the agent's turn with
 * its key (Esc), `pause` the foreground process group (SIGSTOP until a
 * person continues), or `none`. `auto`: interrupt for the agents that have
 * an interrupt key (Claude Code, Codex, Gemini), pause for any other program.
 */
export type OnEscalate = 'auto' | 'interrupt' | 'pause' | 'none';
export const ON_ESCALATE: readonly OnEscalate[] = ['auto', 'interrupt', 'pause', 'none'];

export interface ProbeProfile extends Thresholds {
  readonly name: string;
  readonly rules: ProbeRules;
  readonly onEscalate: OnEscalate;
  /** The share (0–1) of a budget (steps, tokens, wall) at which the agent is asked once to wrap up and hand off; null: never. */
  readonly wrapUp: number | null;
  /** Reminders to run the project's check before a claim of done after code changes is accepted; 0: no reminders and no unverified end. */
  readonly verifyReminders: number;
}

/** The wrap-up share a profile without `wrap_up` gets: 85 % leaves 12 of the default 80 tool calls for the hand-off. */
export const DEFAULT_WRAP_UP = 0.85;
/** Reminders a profile without `verify_reminders` gets (seed 004: at most two). */
export const DEFAULT_VERIFY_REMINDERS = 2;

/**
 * A wrap-up share as written in probes.yaml and on the command line: `85%`
 * (1–99) or `off`. Returns the share, null for off, or a problem in words.
 */
export function parseWrapUp(text: string): number | null | { problem: string } {
  const t = text.trim().toLowerCase();
  if (t === 'off') return null;
  const m = /^(\d{1,2})\s*%$/.exec(t);
  const n = m ? Number(m[1]) : NaN;
  if (!(n >= 1 && n <= 99)) return { problem: 'expected a share of the budget from 1% to 99%, or off' };
  return n / 100;
}

/** Facts the caller measures outside the event stream. */
export interface ProbeContext {
  /**
   * Whether `git status --porcelain` of the job's cwd changed during the
   * stream's LAST turn; null = unknown (not a repository, not measured),
   * which counts as "no evidence of writes".
   */
  readonly gitChanged: boolean | null;
  /**
   * The same for any turn, keyed by its turn-end id or its turn id
   * (Verdict.turn); wins over gitChanged. A caller that runs the probes again
   * as the stream grows must keep every finished turn's fact here: an
   * earlier turn without an entry is unknown, so its claim would be judged
   * anew without the git evidence that cleared it.
   */
  readonly gitChangedByTurn?: Readonly<Record<string, boolean | null>>;
  /** The job reached a terminal state. Default: the stream's last event is a turn-end. */
  readonly jobFinished?: boolean;
  /** Spent before the first event given (an adopted job: what the previous daemon counted); budgets go on from it. */
  readonly spentBefore?: Spent;
}

/** Tool calls and tokens a job has used. */
export interface Spent {
  readonly steps: number;
  readonly tokens: number;
}

export type Probe = (events: readonly AgentEvent[], profile: ProbeProfile, ctx: ProbeContext) => Verdict[];

export type ToolCallEvent = Extract<AgentEvent, { kind: 'tool-call' }>;
export type ToolResultEvent = Extract<AgentEvent, { kind: 'tool-result' }>;
export type TurnStartEvent = Extract<AgentEvent, { kind: 'turn-start' }>;
export type TurnEndEvent = Extract<AgentEvent, { kind: 'turn-end' }>;
