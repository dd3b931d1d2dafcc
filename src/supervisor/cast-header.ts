/** The header of a job's recording: enough to replay it faithfully as a drill. */
import { REGISTRY_ENV_NAMES } from '../responder/policy.js';
import type { JobSpec } from './job-spec.js';

export function castHeader(spec: JobSpec, startMs: number) {
  return {
    width: spec.cols,
    height: spec.rows,
    timestamp: Math.floor(startMs / 1_000),
    command: [spec.command, ...spec.args].map(shellQuote).join(' '),
    ...(spec.name ? { title: spec.name } : {}),
    // Registry settings travel with the recording so a drill judges package sources as this run did.
    env: { TERM: 'xterm-256color', SHELL: spec.env.SHELL ?? '/bin/sh', ...pickEnv(spec.env, REGISTRY_ENV_NAMES) },
  };
}

/** Quotes a word for a POSIX shell, so the recorded command can be pasted back. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function pickEnv(env: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]!]));
}
