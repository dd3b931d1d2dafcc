/** Human sizes (`256m`, `1g`, `500k`, `4096`; binary units) ↔ bytes. */
import { InputError } from './errors.js';

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

export function parseSize(value: string, what = 'size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$/i.exec(value);
  if (!m) throw new InputError(`${what} "${value}" is not a size; expected e.g. 256m, 1g, 500k or a number of bytes`);
  return Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
}

export function formatSize(bytes: number): string {
  for (const [unit, n] of [['g', 1024 ** 3], ['m', 1024 ** 2], ['k', 1024]] as const) {
    if (bytes >= n) return `${+(bytes / n).toFixed(1)}${unit.toUpperCase()}B`;
  }
  return `${bytes}B`;
}

/** A write that failed because the disk (or the user's quota) is full. */
export function isNoSpace(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
