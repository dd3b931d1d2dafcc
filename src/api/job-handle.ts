/**
 * What commands, streams and the web get of a job the daemon runs: what
 * they read and what a person may do, never the job's PTY, watchdog or
 * files.
 */
import type { PromptRule } from '../core/prompt-match.js';
import type { RulesCoverage } from '../rules/coverage.js';
import type { BlockedPrompt, JobStatus, ScreenView } from '../supervisor/live-job.js';
import type { AnswerInput } from '../supervisor/person-acts.js';
import type { JobWarning } from '../supervisor/tree-agent.js';

export interface JobHandle {
  readonly id: string;
  /** Settles once the job has ended and its final records are written. */
  readonly finished: Promise<unknown>;
  readonly screen: ScreenView;
  /** The watchdog's view now: show's signals. */
  status(): JobStatus;
  /** What the job's watchers want a person to know though nothing is blocked (no transcript). */
  readonly warnings: JobWarning[];
  readonly rulesCoverage: RulesCoverage | null;
  /** The page key of the block a person was paged for, while it lasts. */
  readonly blockedEpisode: string | null;
  blockedPrompt(): BlockedPrompt | null;
  /** The rule of the prompt the job is blocked on now, as the watchdog's reason names it. */
  blockedRule(): PromptRule | undefined;
  /** Everything the job prints from now on; returns the unsubscribe. */
  watchOutput(listener: (data: string) => void): () => void;
  /** Keystrokes from a person's terminal (attach). */
  input(data: string, who: string): void;
  answer(input: AnswerInput, who: string): Promise<readonly string[]>;
  send(text: string, enter: boolean, who: string): Promise<void>;
  key(name: string, who: string): void;
  continueJob(who: string): void;
  cancel(who: string): Promise<unknown>;
}

