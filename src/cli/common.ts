/** Options and helpers shared by several CLI verbs. */
import { parseSize } from '../util/size.js';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_WATCHDOG, type WatchdogConfig } from '../core/watchdog-types.js';
import { parseDuration } from '../util/duration.js';
import { packagePath } from '../util/package.js';

/** rules/ shipped beside the package, used when --rules is not given. */
export const SHIPPED_RULES = packagePath('rules');

export function defaultRulesPath(): string {
  return process.env.NIGHTSHIFT_RULES ?? SHIPPED_RULES;
}

export function defaultStateDir(): string {
  return resolve(process.env.NIGHTSHIFT_STATE ?? 'state');
}

/** Help for a duration flag: the unit is not obvious from `<duration>` alone (a bare number is seconds). */
export function durationHelp(text: string, byDefault?: string): string {
  return `${text} (${byDefault ? `default ${byDefault}; ` : ''}e.g. 250ms, 90s, 3m, 6h)`;
}

export function durationArg(what: string) {
  return (value: string): number => {
    try {
      return parseDuration(value, what);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

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
