/**
 * Whether a process sits blocked in read(2) on a terminal, from /proc: its
 * state is S, its wait channel is the tty's (`wait_woken` or `n_tty_read`),
 * and /proc/PID/syscall names read on an fd that is a pseudo-terminal.
 * undefined when /proc does not say (another kernel, no permission): the
 * caller then keeps its usual settle time.
 */
import { arch } from 'node:os';
import { readFileSync, readlinkSync } from 'node:fs';

/** read(2)'s number: x86-64 0, arm64 63 (the kernels nightshift runs on). */
const READ_SYSCALL: Readonly<Record<string, number>> = { x64: 0, arm64: 63 };
const TTY_WAIT = new Set(['wait_woken', 'n_tty_read']);

export function readsTerminal(pid: number, state: string, procRoot = '/proc'): boolean | undefined {
  const read = READ_SYSCALL[arch()];
  if (read === undefined) return undefined;
  if (state !== 'S') return false;
  try {
    if (!TTY_WAIT.has(readFileSync(`${procRoot}/${pid}/wchan`, 'utf8').trim())) return false;
    const [nr, fdHex] = readFileSync(`${procRoot}/${pid}/syscall`, 'utf8').trim().split(' ');
    if (Number(nr) !== read || fdHex === undefined) return false;
    return /^\/dev\/(?:pts\/\d+|tty)/.test(readlinkSync(`${procRoot}/${pid}/fd/${Number.parseInt(fdHex, 16)}`));
  } catch {
    return undefined;
  }
}
