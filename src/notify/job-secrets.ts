/**
 * What the control socket hands out about a job, with the job's secrets
 * out: env values whose names look secret are `***`, and the job's own
 * `--env` values (plus pattern secrets) are redacted wherever its command,
 * reasons, screen, evidence or pages carry them. The board itself keeps the
 * real env: the job needs it to start.
 */
import type { Board } from '../board/board.js';
import type { JobRecord, TransitionRecord } from '../board/types.js';
import { maskEnv, redactDeep, redactorFor, type Redactor } from './secrets.js';

/** The job's Redactor, by id; made once per job (its env never changes after submit). */
export function jobRedactors(board: Board): (job: string) => Redactor | undefined {
  const cache = new Map<string, Redactor>();
  return (job) => {
    let r = cache.get(job);
    if (!r) {
      const rec = board.get(job);
      if (!rec) return undefined;
      r = redactorFor(rec.env);
      cache.set(job, r);
    }
    return r;
  };
}

/** A job record fit to show: env masked by name, command and reason redacted. */
export function maskJob(rec: JobRecord, r: Redactor = redactorFor(rec.env)): JobRecord {
  return {
    ...rec,
    env: maskEnv(rec.env),
    command: rec.command.map(r),
    reason: redactDeep(rec.reason, r),
  };
}

export function maskTransitions(ts: TransitionRecord[], r: Redactor): TransitionRecord[] {
  return ts.map((t) => ({ ...t, reason: redactDeep(t.reason, r) }));
}

/** `show`'s answer with every string that came from the job redacted, and the record masked. */
export function maskShown<T extends { job: JobRecord; transitions: TransitionRecord[] }>(shown: T): T {
  const r = redactorFor(shown.job.env);
  const { job, transitions, ...rest } = shown;
  return { ...redactDeep(rest, r), job: maskJob(job, r), transitions: maskTransitions(transitions, r) } as T;
}

/**
 * `resume` only sees masked env values, so it names the job to take the env
 * from (`env_of`); the daemon copies the real values in, the spec's own
 * entries winning.
 */
export function inheritEnv(board: Board, spec: unknown): unknown {
  if (!spec || typeof spec !== 'object' || !('env_of' in spec)) return spec;
  const { env_of: from, ...rest } = spec as Record<string, unknown> & { env?: Record<string, string> };
  const old = board.require(String(from));
  return { ...rest, env: { ...old.env, ...(rest.env ?? {}) } };
}
