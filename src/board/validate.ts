/**
 * Checks a submitted job spec before anything is written. Specs come from
 * the CLI, from files and from scripts over the socket, so every field is
 * checked at run time, not trusted to its TypeScript type.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import type { Budgets, JobSpecInput, OnUnansweredSpec, ResumeFrom } from './types.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ID = /^j-\d{8}-\d{6}-[0-9a-f]{4}$/;

/** ISO-8601 UTC for a time in ms; the board never reads the clock itself. */
export function isoTime(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`time ${ms} is not a number of milliseconds`);
  return new Date(ms).toISOString();
}

/** `j-<yyyymmdd-hhmmss>-<4 hex>` (UTC); `taken` rejects one already used. */
export function newJobId(now: number, taken: (id: string) => boolean): string {
  const iso = isoTime(now);
  const stamp = `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
  // 65536 ids per second; even a burst of submits finds a free one quickly.
  for (let i = 0; i < 1000; i++) {
    const id = `j-${stamp}-${randomBytes(2).toString('hex')}`;
    if (!taken(id)) return id;
  }
  throw new Error(`no free job id left for ${stamp}`);
}

export function isJobId(s: string): boolean {
  return ID.test(s);
}

/** A shallow copy of the spec with every field checked; `after` is left for the board to resolve. */
/** A spec as it arrives (the socket's JSON, the CLI's object): every field is checked here, so any input is taken. */
export function validateSpec(input: unknown): JobSpecInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('a job spec must be an object');
  const spec = input as Partial<Record<keyof JobSpecInput, unknown>>;
  return {
    name: checkName(spec.name),
    command: checkCommand(spec.command),
    cwd: checkText('cwd', spec.cwd),
    env: checkEnv(spec.env),
    policy: checkOptionalText('policy', spec.policy),
    rules: checkOptionalText('rules', spec.rules),
    budgets: checkBudgets(spec.budgets),
    priority: checkPriority(spec.priority),
    after: checkAfter(spec.after),
    resume_from: checkResumeFrom(spec.resume_from),
    on_unanswered: checkOnUnanswered(spec.on_unanswered),
  };
}

/**
 * The submit flag that sets each checked field: the person typed the flag,
 * and a message naming `wall_ms` sends them looking for it. A script that
 * writes the spec itself finds the field by the flag's help.
 */
export const SPEC_FLAGS = {
  'budgets.wall_ms': '--max-wall',
  'budgets.no_progress_ms': '--max-idle',
  'budgets.tokens': '--max-tokens',
  'budgets.steps': '--max-steps',
  'budgets.blocked_ms': '--max-blocked',
  'on_unanswered.after_ms': '--on-unanswered',
  'on_unanswered.do': '--on-unanswered',
} as const;

type FlagField = keyof typeof SPEC_FLAGS;

/** The rule each field keeps, in the flag's terms. */
const FLAG_RULE: Record<FlagField, string> = {
  'budgets.wall_ms': 'must be at least 1ms',
  'budgets.no_progress_ms': 'must be at least 1ms',
  'budgets.tokens': 'must be a whole number, at least 1',
  'budgets.steps': 'must be a whole number, at least 1',
  'budgets.blocked_ms': 'must be at least 1ms, or off',
  'on_unanswered.after_ms': 'must be at least 1ms',
  'on_unanswered.do': 'can only decline',
};

function flagError(field: FlagField, got: unknown): InputError {
  return new InputError(`${SPEC_FLAGS[field]} ${FLAG_RULE[field]} (got ${JSON.stringify(got)})`);
}

const ON_UNANSWERED = z.strictObject({
  after_ms: z.number().int().positive(),
  do: z.literal('decline'),
});

function checkOnUnanswered(v: unknown): OnUnansweredSpec | null {
  if (v === null || v === undefined) return null;
  const parsed = ON_UNANSWERED.safeParse(v);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = `on_unanswered.${issue.path.join('.')}`;
  if (field in SPEC_FLAGS) throw flagError(field as FlagField, (v as Record<string, unknown>)[String(issue.path[0])]);
  throw new InputError(`--on-unanswered is not valid: ${issue.message} (got ${JSON.stringify(v)})`);
}

const RESUME_FROM = z.strictObject({
  job: z.string().min(1),
  transcript: z.string().min(1),
  lines: z.number().int().nonnegative(),
  last_event: z.string().min(1).nullable(),
  goal: z.string(),
  /** Who resumed it (`nightshift resume` sends the user). */
  by: z.string().min(1).optional(),
});

function checkResumeFrom(r: unknown): ResumeFrom | null {
  if (r === null || r === undefined) return null;
  const parsed = RESUME_FROM.safeParse(r);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InputError(`job resume_from.${issue.path.join('.') || '(whole)'} is not valid: ${issue.message} (got ${JSON.stringify(r)})`);
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new InputError(
      `job name ${JSON.stringify(name)} is not valid: expected a letter or digit, then up to 63 letters, digits, ".", "_" or "-"`,
    );
  }
  // Jobs are looked up by id or name; a name shaped like an id would be ambiguous.
  if (ID.test(name)) throw new InputError(`job name "${name}" looks like a job id (j-…); choose another name`);
  return name;
}

function checkCommand(command: unknown): string[] {
  if (!Array.isArray(command) || command.length === 0 || command[0] === '') {
    throw new InputError(`job command ${JSON.stringify(command)} is not valid: expected a program and its arguments`);
  }
  if (!command.every((a) => typeof a === 'string')) {
    throw new InputError(`job command ${JSON.stringify(command)} is not valid: every argument must be a string`);
  }
  return [...(command as string[])];
}

function checkText(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new InputError(`job ${field} ${JSON.stringify(value)} is not valid: expected a non-empty string`);
  }
  return value;
}

function checkOptionalText(field: string, value: unknown): string | null {
  return value === null || value === undefined ? null : checkText(field, value);
}

function checkEnv(env: unknown): Record<string, string> {
  if (env === undefined) return {};
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    throw new InputError(`job env ${JSON.stringify(env)} is not valid: expected an object of NAME: value strings`);
  }
  for (const [k, v] of Object.entries(env)) {
    if (k === '' || k.includes('=') || typeof v !== 'string') {
      throw new InputError(`job env ${JSON.stringify(k)} is not valid: expected a name without "=" and a string value`);
    }
  }
  return { ...(env as Record<string, string>) };
}

function checkBudgets(b: unknown): Budgets {
  const given = (b ?? {}) as Partial<Record<keyof Budgets, unknown>>;
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw new InputError(`job budgets ${JSON.stringify(b)} is not valid: expected { wall_ms, tokens, no_progress_ms, steps, blocked_ms }`);
  }
  const one = (key: keyof Budgets): number | null => {
    const v = given[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw flagError(`budgets.${key}`, v);
    return v;
  };
  return { wall_ms: one('wall_ms'), tokens: one('tokens'), no_progress_ms: one('no_progress_ms'), steps: one('steps'), blocked_ms: one('blocked_ms') };
}

function checkPriority(p: unknown): number {
  if (p === undefined) return 0;
  if (typeof p !== 'number' || !Number.isSafeInteger(p)) {
    throw new InputError(`job priority ${JSON.stringify(p)} is not valid: expected a whole number`);
  }
  return p;
}

function checkAfter(after: unknown): string[] {
  if (after === undefined) return [];
  if (!Array.isArray(after) || !after.every((a) => typeof a === 'string' && a !== '')) {
    throw new InputError(`job after ${JSON.stringify(after)} is not valid: expected a list of job names or ids`);
  }
  return [...new Set(after as string[])];
}
