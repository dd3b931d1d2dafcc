/**
 * A job's own secrets. Pattern redaction (page.ts `redact`) knows what
 * tokens look like; it cannot know that `--env API_KEY=hunter2-prod` makes
 * "hunter2-prod" a secret. A Redactor made from the job's `--env` does both:
 * every value the job was given is replaced literally, then the patterns run.
 * Every place that shows or stores the job's terminal text (pages, logs,
 * show, summary.json, evidence) goes through the job's Redactor. The
 * recording (recording.cast) stays raw: it is the evidence, kept 0600.
 */
import { pino } from 'pino';
import { redact as redactPatterns } from './page.js';

export const REDACTED = '[redacted]';
/** How `board`/`show` print the value of an env entry whose name looks secret. */
export const MASK = '***';

/** Env names that hold credentials: KEY, TOKEN, SECRET, PASS, CREDENTIAL, AUTH anywhere in the name. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH/i;

/**
 * Shortest value replaced literally. A value like `1`, `true` or `info`
 * would blank every occurrence of a common word, so a value must have at
 * least 6 characters — 4 when the variable's name says it is a secret.
 */
export const MIN_VALUE_LENGTH = 6;
export const MIN_SECRET_VALUE_LENGTH = 4;

/** Variables nightshift sets itself (agent, profile): settings, not secrets. */
const OWN_VARIABLE = /^NIGHTSHIFT_/;

export type Redactor = (text: string) => string;

/** The values of `env` worth redacting, longest first (a value that holds another goes whole). */
export function secretValues(env: Readonly<Record<string, string>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (OWN_VARIABLE.test(name)) continue;
    const min = SECRET_ENV_NAME.test(name) ? MIN_SECRET_VALUE_LENGTH : MIN_VALUE_LENGTH;
    if (value.trim().length < min) continue;
    values.add(value);
    // The same value inside a JSON string (a log line, a record read back as text).
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) values.add(escaped);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Literal values, then the patterns: the one redaction every consumer of a job's text uses. */
export function redactorFor(env: Readonly<Record<string, string>> | null | undefined): Redactor {
  const values = secretValues(env ?? {});
  if (values.length === 0) return redactPatterns;
  return (text) => {
    let out = text;
    for (const v of values) out = out.split(v).join(REDACTED);
    return redactPatterns(out);
  };
}

/**
 * Every string inside `value` redacted (objects and arrays copied, other
 * values kept). Errors become plain `{type, message, stack}` records.
 */
export function redactDeep<T>(value: T, r: Redactor, byKey: ByKey = {}): T {
  return walk(value, r, byKey, 0) as T;
}

/** A field, wherever it is, that takes its own treatment instead of the walk (the web's `env`: redact.ts). */
export type ByKey = Readonly<Record<string, (value: unknown) => unknown>>;

function walk(v: unknown, r: Redactor, byKey: ByKey, depth: number): unknown {
  if (typeof v === 'string') return r(v);
  if (v === null || typeof v !== 'object' || depth > 20) return v;
  // pino's own error form (type, message and stack with their causes, own fields such as `command`), then redacted.
  if (v instanceof Error) return walk({ ...pino.stdSerializers.err(v) }, r, byKey, depth + 1);
  if (Array.isArray(v)) return v.map((x) => walk(x, r, byKey, depth + 1));
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = Object.hasOwn(byKey, k) ? byKey[k]!(x) : walk(x, r, byKey, depth + 1);
  return out;
}

/** `env` with the values of secret-looking names replaced by `***` (for board and show). */
export function maskEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, SECRET_ENV_NAME.test(k) ? MASK : v]));
}
