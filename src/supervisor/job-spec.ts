/** What a live job runs (JobSpec), how it is wired (JobOptions) and what its readers see of it. */
import type { ResumeFrom } from '../board/types.js';
import type { AgentKind } from '../core/agent-events.js';
import type { Clock } from '../core/clock.js';
import type { OnUnanswered } from '../core/unanswered.js';
import type { Transition } from '../core/task-state.js';
import type { Action, WatchdogConfig } from '../core/watchdog-types.js';
import type { PromptRule } from '../core/prompt-match.js';
import type { ResumePoint, Watchdog } from '../core/watchdog.js';
import type { JobTerminal } from './job-terminal.js';
import type { Screen } from '../screen/screen.js';
import type { ProbeProfile } from '../probes/index.js';
import type { RulesCoverage } from '../rules/coverage.js';
import type { BundleSource } from '../rules/live-bundle.js';
import type { JobPaths } from './job-dir.js';
import type { JobSink } from './job-events.js';
import type { JobWarning } from './tree-agent.js';

export interface JobSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  readonly name?: string;
}

export interface JobOptions {
  readonly paths: JobPaths;
  /** The rules and policy in force; the job follows its later reloads. */
  readonly bundle: BundleSource;
  /** What the owner should hear of though the job goes on: a release that failed during teardown, a sink that threw. */
  readonly onProblem?: (problem: string) => void;
  readonly config: WatchdogConfig;
  readonly procSampleMs?: number;
  readonly clock?: Clock;
  /** The owner's sinks (the daemon's board and pages): each event reaches them after the job's own records. */
  readonly sinks?: readonly JobSink[];
  readonly onTransition?: (t: Transition) => void;
  readonly onAction?: (a: Action) => void;
  /** The output as the terminal's bytes, as they came (a character may be split between two calls). */
  readonly onOutput?: (bytes: Buffer) => void;
  /**
   * Answer the program's terminal queries (cursor position, device
   * attributes) from the headless screen. Off when a real terminal mirrors
   * the output and answers them itself, or the program would get two replies.
   */
  readonly answerQueries?: boolean;
  /**
   * The agent this job runs (transcript, probes); absent = a plain program.
   * `resumeFrom`: a resumed job, which follows the old job's transcript past what that job judged.
   */
  readonly agent?: { readonly kind: AgentKind; readonly profile: ProbeProfile; readonly resumeFrom?: ResumeFrom | null };
  /** The probe profile for an agent found later in the job's process tree (a wrapper script); undefined: it stays a plain program. */
  readonly lateAgent?: (kind: AgentKind) => Promise<JobOptions['agent']>;
  /** A warning about the running job (no transcript): log, show, board, page. */
  readonly onWarning?: (w: JobWarning) => void;
  /**
   * The agent the command runs, even without probe profiles: its version is
   * read after the start and compared with the rules' `checked:` versions.
   */
  readonly agentKind?: AgentKind;
  /** The agent's version compared with the rules (a hint: it never fails or delays the start). */
  readonly onCoverage?: (c: RulesCoverage) => void;
  /** The job's Redactor (src/notify/secrets.ts): applied to its log, evidence and summary. The recording stays raw. */
  readonly redact?: (text: string) => string;
  /** The recording's size cap in bytes (default DEFAULT_RECORDING_CAP); past it a marker and the tail are kept. */
  readonly recordingCap?: number;
  /** A file of the job could not be written (a full disk): the job goes on, that file stops. Once per file. */
  readonly onDiskProblem?: (file: string, e: Error) => void;
  /** The job's own on_unanswered; absent: its policy file's, if that has one. */
  readonly onUnanswered?: OnUnanswered | null;
  /** The ceiling on waiting: a job blocked on a page this long with nobody acting ends `unanswered`; null or absent: none. */
  readonly maxBlockedMs?: number | null;
  /** Where the PTY comes from (default: this process). */
  readonly terminal?: JobTerminal;
  /** An adopted job (the daemon restarted): the board's state to go on from, and when the job started. */
  readonly resume?: { readonly point: ResumePoint; readonly startedAt: number };
}

/** What a reader of a live job's screen may use: the headless screen stays the job's. */
export type ScreenView = Pick<Screen, 'text' | 'snapshot' | 'serialize' | 'cols' | 'rows'>;

/** What the watchdog currently believes (show's signals, the budgets' progress). */
export type JobStatus = ReturnType<Watchdog['status']>;

/** A blocked prompt as the watchdog last acted on it, and the rule that matched it (null: no rule by that id now). */
export interface BlockedPrompt {
  readonly action: Action;
  readonly rule: PromptRule | null;
}
