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
