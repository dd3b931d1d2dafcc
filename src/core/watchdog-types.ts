import type { ScreenSnapshot } from './screen-snapshot.js';
import type { PromptClass, Transition } from './task-state.js';
import type { PromptMatch, PromptRule } from './prompt-match.js';
import type { ToolEvent } from './tool-events.js';
import type { AgentState } from './agent-state.js';
import type { TtyMode } from './input-wait.js';

export interface WatchdogConfig {
  /** Screen unchanged this long → inspect (question? busy child? hung?). */
  readonly screenQuietMs: number;
  /** No tool call (and nothing else moving) this long → hung. */
  readonly toolGapMs: number;
  /** A known prompt's own lines must stay unchanged this long before it counts. */
  readonly settleMs: number;
  /** After an automatic answer the prompt must leave the screen within this time, or the job is escalated. */
  readonly verifyMs: number;
}

/**
 * The watchdog sees the screen at most this often while output streams
 * (and always when it pauses): settle and quiet times are measured in
 * seconds and minutes, and reading a screen costs more than parsing it.
 */
export const SCREEN_SAMPLE_MS = 100;

/**
 * A line prompt whose program is blocked reading the terminal needs no long
 * settle: nothing more will be printed until someone types. Its lines must
 * still stand still this long (a prompt redrawn in place).
 */
export const EARLY_SETTLE_MS = 250;

/**
 * A dialog a rule names (its own words, at the bottom of the screen, near
 * the cursor) needs less stillness than a structure no rule names: the
 * settle only has to tell a dialog that waits from a frame in passing, and
 * a working agent redraws its busy line several times a second, so one
 * still second is five or more redraws missed. 1.5 s (the settle for the
 * rest) put the live detection of a known dialog at 1.51 s; the issue's
 * goal is a median of 1.5 s. A dialog that no rule names keeps the full
 * settle, since its structure alone is weaker evidence.
 */
export const KNOWN_DIALOG_SETTLE_MS = 1_000;

/**
 * An agent's own "waiting for permission" (a documented hook) blocks after
 * this grace unless a rule's prompt is on screen by then: the hook may fire
 * a frame before the dialog is drawn, and a rule that names the dialog
 * gives a person more (its class, the command) than the hook does.
 */
export const AGENT_WAIT_GRACE_MS = 500;

/**
 * A watch mode's footer must stand still this long, the process tree idle,
 * before the job counts as parked. Nothing is lost by waiting (it will never
 * end by itself, and nobody is asked anything), while a watcher that still
 * works reprints within seconds: tsc's second pass, vitest re-running after
 * an agent's edit. Ten seconds is several process-tree samples (2 s apart at
 * the slowest pace a moving job has) and far under the 3-minute quiet check.
 */
export const PARKED_MS = 10_000;

export const DEFAULT_WATCHDOG: WatchdogConfig = {
  screenQuietMs: 3 * 60_000,
  toolGapMs: 15 * 60_000,
  settleMs: 1_500,
  verifyMs: 5_000,
};

export interface WatchdogRules {
  readonly prompts: readonly PromptRule[];
  readonly questions: readonly PromptRule[];
  /** Watch modes (rules' `parked:`): a program done with its work, waiting for keys it will never get. */
  readonly parked?: readonly PromptRule[];
}

export type Signal =
  | { readonly kind: 'output' }
  | { readonly kind: 'screen'; readonly snapshot: ScreenSnapshot }
  | { readonly kind: 'tool'; readonly event: ToolEvent }
  | { readonly kind: 'proc'; readonly busy: boolean }
  /** The program in the terminal's foreground changed (anti-spoofing input for the responder). */
  | { readonly kind: 'foreground'; readonly program: string | null }
  /** The file the editor or pager in the foreground has open (its last argument). */
  | { readonly kind: 'foreground-file'; readonly file: string }
  /** The foreground process is blocked reading the terminal (or stopped doing so): a line prompt waits for sure. */
  | { readonly kind: 'tty-read'; readonly reading: boolean }
  /** The terminal's mode (canonical or raw, echo on or off), read while the foreground reads it. */
  | { readonly kind: 'tty-mode'; readonly canonical: boolean; readonly echo: boolean }
  /** A probe escalated (a loop, no progress, a refused claim): blocked until a person acts. */
  | { readonly kind: 'probe'; readonly probe: string; readonly text: string }
  /** A person acted on the job (`continue`, `send`, `answer`, `key`): `by` is `human:<user>`. */
  | { readonly kind: 'person'; readonly action: string; readonly by: string }
  /** What the agent itself says (hooks, notify programs, session files): see agent-state.ts. */
  | { readonly kind: 'agent'; readonly signal: AgentState }
  | {
      readonly kind: 'exit';
      readonly exitCode: number | null;
      readonly signal: string | null;
      /** Why the supervisor stopped it, when it did (`timeout`, `cancelled`, `budget:wall`). */
      readonly stoppedFor?: string;
      /** Said with the reason (why a job was lost). */
      readonly detail?: string;
      /** When it exited, if before now (seen by the PTY host while no daemon watched). */
      readonly at?: number;
    };

export type ActionKind = 'answer' | 'escalate' | 'nudge' | 'stop';

export interface Action {
  readonly t: number;
  readonly kind: ActionKind;
  readonly rule: string | null;
  readonly class: PromptClass | null;
  /** The prompt as copyable text (the matched lines), when there is one. */
  readonly prompt: string | null;
  /** One line for humans: what happened and why. */
  readonly text: string;
  /** The blocked reason code this action answers. */
  readonly reason: string;
  /** When the blocking condition appeared (prompt first on screen, quiet start). */
  readonly since: number;
  /** Visible screen at the moment of the action (evidence). */
  readonly screen: readonly string[];
  /** Keys that were (or would be) sent, for `answer`. */
  readonly keys?: readonly string[];
  /** Which responder layer decided, and why. */
  readonly layer: string;
  readonly why: string;
  /** What the responder read from the prompt. */
  readonly command?: string | null;
  readonly packages?: readonly PackageLike[];
  /** The risk patterns the prompt hit (why it is destructive), for the page's words. */
  readonly risks?: readonly RiskLike[];
}

export interface RiskLike {
  readonly id: string;
  readonly text: string;
}

export interface PackageLike {
  readonly ecosystem: string;
  readonly name: string;
  readonly version: string | null;
  readonly source: string | null;
}

/** What the responder is handed for a settled prompt (see src/responder). */
export interface ResponderInput {
  readonly match: PromptMatch;
  readonly screen: ScreenSnapshot;
  readonly foreground: string | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly askedBefore: boolean;
}

export interface ResponderDecision {
  readonly kind: 'answer' | 'escalate';
  readonly layer: string;
  readonly why: string;
  readonly class: PromptClass;
  readonly keys: readonly string[];
  readonly command: string | null;
  readonly packages: readonly PackageLike[];
  readonly risks?: readonly RiskLike[];
}

/** Decides answer-or-escalate for a settled prompt; pure, like the watchdog. */
export interface PromptResponder {
  decide(input: ResponderInput): ResponderDecision;
}

export interface WatchdogOptions {
  /** Decides answer-or-escalate for known prompts; without one every prompt is escalated. */
  readonly responder?: PromptResponder;
  /** The job's environment (the responder reads registry settings from it). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface WatchdogListener {
  transition?(t: Transition): void;
  action?(a: Action): void;
}
