/** Options and helpers shared by several CLI verbs. */
import { parseSize } from '../util/size.js';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_WATCHDOG, type WatchdogConfig } from '../core/watchdog-types.js';
import { formatDuration, parseDurationFlag } from '../util/duration.js';
import { InputError } from '../util/errors.js';
import { defaultStateDir, findPolicy } from '../util/home.js';
import { defaultPolicyPath } from '../rules/policy-path.js';
import { packagePath } from '../util/package.js';

/** rules/ shipped beside the package, used when --rules is not given. */
export const SHIPPED_RULES = packagePath('rules');

export function defaultRulesPath(): string {
  return process.env.NIGHTSHIFT_RULES ?? SHIPPED_RULES;
}

/** `--state`'s help: where the state lives when the flag is not given (src/util/home.ts decides). */
export const STATE_HELP = 'state directory (default: $NIGHTSHIFT_STATE, else $XDG_STATE_HOME/nightshift, else ~/.local/state/nightshift)';

/** --state, else the one per-user home: every verb finds the same daemon from any folder. */
export function stateDirFrom(flag: string | undefined): string {
  return flag ? resolve(flag) : defaultStateDir();
}

/** --policy, else the person's own policy.yaml (state or config folder), else the rules folder's. */
export function policyPathOf(flag: string | undefined, stateDir: string, rulesPath: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (flag) return resolve(flag);
  return findPolicy(stateDir, env).file ?? defaultPolicyPath(rulesPath);
}

/** Help for a duration flag: the unit is not obvious from `<duration>` alone, and a bare number is refused. */
export function durationHelp(text: string, byDefault?: string): string {
  return `${text} (${byDefault ? `default ${byDefault}; ` : ''}e.g. 250ms, 90s, 3m, 6h)`;
}

/**
 * An InputError, not commander's InvalidArgumentError: one line `--flag
 * "value": problem`, exit 2. A budget or a timer of zero would stop the job
 * or spin at once: those give `min` (1 ms).
 */
export function durationArg(flag: string, min = 0) {
  return (value: string): number => {
    const ms = parseDurationFlag(value, flag);
    if (ms < min) throw new InputError(`${flag} must be at least ${formatDuration(min)} (got "${value}")`);
    return ms;
  };
}

/** A duration flag that also takes `off` (the limit turned off for this job); commander cannot hold a null, so `off` stays a word until offMs. */
export function offOrDuration(flag: string) {
  const duration = durationArg(flag, 1);
  return (value: string): number | 'off' => (value === 'off' ? 'off' : duration(value));
}

/** An offOrDuration flag's value as a limit: null when off. */
export const offMs = (v: number | 'off'): number | null => (v === 'off' ? null : v);

/** `--recording-cap SIZE`: at least 64 KB, so the cap marker and a useful tail fit. */
export function sizeArg(what: string) {
  return (value: string): number => {
    let n: number;
    try {
      n = parseSize(value, what);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
    if (n < 65_536) throw new InvalidArgumentError(`${what} "${value}" is below the smallest cap, 64k`);
    return n;
  };
}

export const RECORDING_CAP_HELP = 'recording size cap; past it a marker and the last 5% are kept (default 256m; e.g. 500k, 64m, 1g)';

export function intArg(what: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${what} "${value}" must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}

export interface WatchdogFlags {
  screenQuiet?: number;
  toolGap?: number;
  settle?: number;
}

export function addWatchdogFlags(cmd: Command): Command {
  return cmd
    .option('--screen-quiet <duration>', durationHelp('screen unchanged this long triggers an inspection', '3m'), durationArg('--screen-quiet'))
    .option('--tool-gap <duration>', durationHelp('no tool call and nothing moving this long means hung', '15m'), durationArg('--tool-gap'))
    .option('--settle <duration>', durationHelp('a known prompt must stay unchanged this long', '1.5s'), durationArg('--settle'));
}

export function watchdogConfig(f: WatchdogFlags): WatchdogConfig {
  return {
    screenQuietMs: f.screenQuiet ?? DEFAULT_WATCHDOG.screenQuietMs,
    toolGapMs: f.toolGap ?? DEFAULT_WATCHDOG.toolGapMs,
    settleMs: f.settle ?? DEFAULT_WATCHDOG.settleMs,
    verifyMs: DEFAULT_WATCHDOG.verifyMs,
  };
}
