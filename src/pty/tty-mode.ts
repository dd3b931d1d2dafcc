/**
 * The terminal's mode (canonical or raw, echo on or off) as the foreground
 * program set it. Neither node-pty nor /proc gives a terminal's termios, so
 * `stty -F` reads it (tcgetattr) from the pseudo-terminal the program
 * reads, on the exec thread: asked only when a program starts reading the
 * terminal, never on every sample.
 */
import { readlinkSync } from 'node:fs';
import type { TtyMode } from '../core/input-wait.js';
import { execFileOffThread } from '../util/exec-thread.js';

/** The terminal behind fd 0 of `pid`, if it is one. */
function terminalOf(pid: number, procRoot: string): string | undefined {
  try {
    const dev = readlinkSync(`${procRoot}/${pid}/fd/0`);
    return /^\/dev\/pts\/\d+$/.test(dev) ? dev : undefined;
  } catch {
    return undefined;
  }
}

/** `stty -a`'s words: `-icanon` is raw, `-echo` is echo off. */
export function parseStty(out: string): TtyMode | undefined {
  const words = new Set(out.split(/[\s;]+/));
  const canonical = words.has('icanon') ? true : words.has('-icanon') ? false : undefined;
  const echo = words.has('echo') ? true : words.has('-echo') ? false : undefined;
  return canonical === undefined || echo === undefined ? undefined : { canonical, echo };
}

/** undefined when the terminal cannot be read (the process left, no stty). */
export async function readTtyMode(pid: number, procRoot = '/proc'): Promise<TtyMode | undefined> {
  const dev = terminalOf(pid, procRoot);
  if (!dev) return undefined;
  try {
    return parseStty(await execFileOffThread('stty', ['-F', dev, '-a'], { cwd: '/', timeoutMs: 2_000, maxBuffer: 64 * 1024 }));
  } catch {
    return undefined;
  }
}
