/**
 * Human durations (`90s`, `3m`, `1.5s`, `6h`, `250ms`) ↔ milliseconds. In
 * files a bare number is seconds; on the command line it is refused
 * (parseDurationFlag): there the shell splits `6 hours` into a bare `6`
 * and a stray word.
 */
import { InputError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/;

export function parseDuration(value: string | number, what = 'duration'): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value * 1_000;
    throw new InputError(`${what} ${value} must be a non-negative number of seconds`);
  }
  const m = DURATION.exec(value);
  if (!m) throw new InputError(`${what} "${value}" is not a duration; expected e.g. 90s, 3m, 1.5s, 6h, 250ms`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 's']!);
}

/** A duration typed after `flag`: as parseDuration, but a number needs its unit (zero is zero in any unit). */
export function parseDurationFlag(value: string, flag: string): number {
  const m = DURATION.exec(value);
  if (m && m[2] === undefined && Number(m[1]) !== 0) throw new InputError(`${flag} "${value}": give a unit, e.g. 6h, 90m, 30s`);
  return parseDuration(value, flag);
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const s = ms / 1_000;
  if (s < 60) return `${+s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${Math.round(s % 60) ? `${Math.round(s % 60)}s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
}
