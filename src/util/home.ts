/**
 * Where nightshift keeps things for one user when no flag says otherwise,
 * after the XDG base directories: state (board, jobs, socket, logs) in
 * $XDG_STATE_HOME/nightshift, the person's own files (config.yaml,
 * policy.yaml) in $XDG_CONFIG_HOME/nightshift or in the state folder. One
 * well-known place, so every verb finds the same daemon from any folder.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** An XDG variable counts only when it holds an absolute path (the spec says to ignore a relative one). */
function xdg(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v && isAbsolute(v) ? v : join(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(), fallback);
}

/** $NIGHTSHIFT_STATE, else $XDG_STATE_HOME/nightshift, else ~/.local/state/nightshift. */
export function defaultStateDir(env: Env = process.env): string {
  if (env.NIGHTSHIFT_STATE) return resolve(env.NIGHTSHIFT_STATE);
  return join(xdg(env, 'XDG_STATE_HOME', '.local/state'), 'nightshift');
}

/** $XDG_CONFIG_HOME/nightshift, else ~/.config/nightshift. */
export function configDir(env: Env = process.env): string {
  return join(xdg(env, 'XDG_CONFIG_HOME', '.config'), 'nightshift');
}

/** A person's file found by looking in order; `looked` names every place tried, for a start line or doctor. */
export interface Found {
  readonly file: string | null;
  readonly looked: readonly string[];
}

function firstOf(candidates: readonly string[]): Found {
  return { file: candidates.find((c) => existsSync(c)) ?? null, looked: candidates };
}

/** config.yaml: the state folder's own, else the config folder's. */
export function findConfig(stateDir: string, env: Env = process.env): Found {
  return firstOf([join(stateDir, 'config.yaml'), join(configDir(env), 'config.yaml')]);
}

/** policy.yaml: the state folder's own, else the config folder's; null file means the shipped default applies. */
export function findPolicy(stateDir: string, env: Env = process.env): Found {
  return firstOf([join(stateDir, 'policy.yaml'), join(configDir(env), 'policy.yaml')]);
}
