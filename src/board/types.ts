/**
 * The task board's records, as the daemon, the CLI (--json) and scripts see
 * them. Field names are a public interface (README "Task board JSON").
 */
import type { WireReason } from '../core/outcome.js';

export type JobState = 'queued' | 'running' | 'blocked' | 'done';

/** A reason as the board stores it: the wire format of src/core/outcome.ts. */
export type JobReason = WireReason;

export interface Budgets {
  /** Wall-clock cap from start, ms. */
  wall_ms: number | null;
  /** Token cap (enforced when the agent's transcript reports tokens). */
  tokens: number | null;
  /** Stop when nothing moves this long (blocked hung / no progress), ms. */
  no_progress_ms: number | null;
  /** Tool-call cap; null = the probe profile's max_steps. A resumed job gets what was left plus what was granted. */
  steps: number | null;
  /** The ceiling on waiting: blocked on a page this long with nobody acting ends the job `unanswered`, ms; null = none. */
  blocked_ms: number | null;
}

/**
 * Where a resumed job's transcript picks up: the agent's own resume appends
 * to the old session file, whose first `lines` lines the old job already
 * judged. The follower reads them only to rebuild its parser, never to emit.
 */
export interface ResumeFrom {
  /** The job the card came from. */
  job: string;
  /** The transcript the old job followed. */
  transcript: string;
  /** Complete lines of it the old job read. */
  lines: number;
  /** The id of the last event the old job saw, to check the file is still the same. */
  last_event: string | null;
  /** In memory only: the same job adopted after a daemon restart (follow from where the transcript is when found). */
  adopted?: boolean;
  /** In memory only: an adopted job's steps and tokens as its previous daemon recorded them at `lines`. */
  spent?: { steps: number; tokens: number };
  /** The old job's goal: the resumed job's prompt is the resume message, not the task. */
  goal: string;
  /** Who resumed it, recorded as human:<user> in the new job's evidence. */
  by?: string;
}

/** `submit --on-unanswered 2h`: a paged prompt nobody answered in `after_ms` gets its rule's decline keys. */
export interface OnUnansweredSpec {
  after_ms: number;
  do: 'decline';
}

export interface JobSpecInput {
  name: string;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  policy: string | null;
  rules: string | null;
  budgets: Budgets;
  priority: number;
  /** Names or ids of jobs that must be done (exit 0) first. */
  after: string[];
  /** Set by `nightshift resume`; absent or null for a fresh job. */
  resume_from?: ResumeFrom | null;
  /** Absent or null: the job's policy file decides (its `on_unanswered:`), else nothing is declined. */
  on_unanswered?: OnUnansweredSpec | null;
}

export interface JobPaths {
  dir: string;
  recording: string;
  events: string;
  log: string;
  evidence: string;
  summary: string;
}

export interface JobRecord extends JobSpecInput {
  resume_from: ResumeFrom | null;
  on_unanswered: OnUnansweredSpec | null;
  id: string;
  state: JobState;
  reason: JobReason;
  created: string;
  started: string | null;
  ended: string | null;
  /** Last sign of life (output, tool call, child activity), ISO. */
  last_activity: string | null;
  exit: { code: number; signal: string | null } | null;
  paths: JobPaths | null;
  /** Tokens used so far, when known. */
  tokens_used: number | null;
}

export interface TransitionRecord {
  job: string;
  time: string;
  state: JobState;
  reason: JobReason;
}
