/**
 * Credentials in the paging config are references (`env:NAME`,
 * `file:PATH`), read at send time: the config file can be shared or
 * committed, a rotated secret is picked up without a restart, and nothing
 * resolved is ever written to the outbox.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';

export type ValueRef = { env: string } | { file: string } | { literal: string };

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Thrown when a reference cannot be resolved; the row records it and retries. */
export class CredentialError extends Error {
  override readonly name = 'CredentialError';
}

export function isRef(value: string): boolean {
  return value.startsWith('env:') || value.startsWith('file:');
}

/**
 * Parses `env:NAME` / `file:PATH` / a literal. A relative file path is
 * taken from the config file's folder, not the daemon's cwd, which is
 * wherever it happened to be started.
 */
export function parseRef(value: string, baseDir: string): ValueRef {
  if (value.startsWith('env:')) return { env: value.slice(4) };
  if (value.startsWith('file:')) {
    const path = value.slice(5);
    return { file: isAbsolute(path) ? path : resolve(baseDir, path) };
  }
  return { literal: value };
}

/** A problem with a reference's own syntax, or null. */
export function refProblem(value: string): string | null {
  if (value.startsWith('env:') && !ENV_NAME.test(value.slice(4))) {
    return `"${value}": expected env:NAME with NAME of letters, digits and _`;
  }
  if (value.startsWith('file:') && value.length === 5) return `"${value}": expected file:PATH`;
  return null;
}

/** How the value is given, for error messages (never the value itself). */
export function describeRef(ref: ValueRef): string {
  if ('env' in ref) return `env:${ref.env}`;
  if ('file' in ref) return `file:${ref.file}`;
  return 'the config';
}

export async function resolveRef(ref: ValueRef, env: NodeJS.ProcessEnv): Promise<string> {
  if ('literal' in ref) return ref.literal;
  if ('env' in ref) {
    const v = env[ref.env];
    if (v === undefined || v === '') throw new CredentialError(`environment variable ${ref.env} is not set`);
    return v;
  }
  let text: string;
  try {
    text = await readFile(ref.file, 'utf8');
  } catch (e) {
    // "(ENOENT)", not ": ENOENT": a path ending in "token" followed by ": x" reads as a secret to redact().
    throw new CredentialError(`cannot read credential file ${ref.file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  // Secret files usually end in a newline that is not part of the secret.
  const v = text.replace(/\r?\n$/, '');
  if (v === '') throw new CredentialError(`credential file ${ref.file} is empty`);
  return v;
}
