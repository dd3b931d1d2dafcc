/**
 * SQLite rows ⇄ board records. Lists and nested records live in JSON text
 * columns; records are rebuilt with the exact field order of types.ts so
 * `--json` output is stable.
 */
import type { Budgets, JobRecord, JobReason, JobSpecInput, JobState, OnUnansweredSpec, ResumeFrom, TransitionRecord } from './types.js';

export interface JobRow {
  seq: number;
  id: string;
  name: string;
  state: JobState;
  reason: string;
  command: string;
  cwd: string;
  env: string;
  policy: string | null;
  rules: string | null;
  budgets: string;
  priority: number;
  after_ids: string;
  created: string;
  started: string | null;
  ended: string | null;
  last_activity: string | null;
  exit: string | null;
  paths: string | null;
  tokens_used: number | null;
  resume_from: string | null;
}

export interface TransitionRow {
  job: string;
  time: string;
  state: JobState;
  reason: string;
}

/** JSON text or NULL for a column. */
export function json(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export function toJobRecord(r: JobRow): JobRecord {
  return {
    id: r.id,
    name: r.name,
    state: r.state,
    reason: JSON.parse(r.reason) as JobReason,
    command: JSON.parse(r.command) as string[],
    cwd: r.cwd,
    env: JSON.parse(r.env) as Record<string, string>,
    policy: r.policy,
    rules: r.rules,
    budgets: budgetsOf(r.budgets),
    priority: r.priority,
    after: JSON.parse(r.after_ids) as string[],
    resume_from: parse<ResumeFrom>(r.resume_from),
    on_unanswered: (JSON.parse(r.budgets) as { on_unanswered?: OnUnansweredSpec }).on_unanswered ?? null,
    created: r.created,
    started: r.started,
    ended: r.ended,
    last_activity: r.last_activity,
    exit: parse<JobRecord['exit']>(r.exit),
    paths: parse<JobRecord['paths']>(r.paths),
    tokens_used: r.tokens_used,
  };
}

/** Jobs written before the step budget existed have no `steps`: the profile's max_steps applies. */
function budgetsOf(text: string): Budgets {
  const b = JSON.parse(text) as Partial<Budgets>;
  return { wall_ms: b.wall_ms ?? null, tokens: b.tokens ?? null, no_progress_ms: b.no_progress_ms ?? null, steps: b.steps ?? null, blocked_ms: b.blocked_ms ?? null };
}

export function toTransitionRecord(r: TransitionRow): TransitionRecord {
  return { job: r.job, time: r.time, state: r.state, reason: JSON.parse(r.reason) as JobReason };
}

/** Named parameters for inserting a new job. */
export function newJobParams(id: string, spec: JobSpecInput, created: string, reason: JobReason): Record<string, unknown> {
  return {
    id,
    name: spec.name,
    state: 'queued',
    reason: json(reason),
    command: json(spec.command),
    cwd: spec.cwd,
    env: json(spec.env),
    policy: spec.policy,
    rules: spec.rules,
    // on_unanswered rides in the budgets JSON: a time limit too, and no schema migration (v3 is the web's tables).
    budgets: json(spec.on_unanswered ? { ...spec.budgets, on_unanswered: spec.on_unanswered } : spec.budgets),
    priority: spec.priority,
    after_ids: json(spec.after),
    resume_from: json(spec.resume_from ?? null),
    created,
  };
}
