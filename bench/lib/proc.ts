/** Process figures from /proc (Linux). */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
export const HZ = 100;

function statFields(pid: number): string[] {
  // Fields after the command name, which may hold spaces: index 0 is field 3 (state).
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
}

/** utime + stime of a process, in seconds. */
export function cpuSeconds(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) / HZ;
}

/** utime + stime + cutime + cstime (the children it has waited for), in seconds. */
export function cpuSecondsWithChildren(pid: number): number {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / HZ;
}

/** Resident set size in MB (VmRSS, MiB). */
export function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/** Whether a pid is a live process (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return statFields(pid)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The environment as a plain string record, with nightshift's own settings removed. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('NIGHTSHIFT_')));
  return { ...env, ...extra };
}
