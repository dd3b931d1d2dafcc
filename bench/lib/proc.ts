/** Process figures from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

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

/** CPU seconds in user space and in the kernel (a tty's or a file's copies are the kernel's). */
export interface UserSys {
  user: number;
  sys: number;
}

/** Each thread's CPU so far, by thread id (/proc/PID/task); a thread gone by the time it is read is left out. */
export function threadCpu(pid: number): Map<number, UserSys> {
  const out = new Map<number, UserSys>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      out.set(Number(tid), { user: Number(f[11]) / HZ, sys: Number(f[12]) / HZ });
    } catch {
      // Ended between the listing and the read.
    }
  }
  return out;
}

/** What a process's main thread and its other threads (workers, V8's helpers) used between two threadCpu readings. */
export function threadCpuSplit(pid: number, before: Map<number, UserSys>, after: Map<number, UserSys>): { main: UserSys; others: UserSys } {
  const main = { user: 0, sys: 0 };
  const others = { user: 0, sys: 0 };
  for (const [tid, a] of after) {
    const b = before.get(tid) ?? { user: 0, sys: 0 };
    const to = tid === pid ? main : others;
    to.user += a.user - b.user;
    to.sys += a.sys - b.sys;
  }
  const round = (x: UserSys) => ({ user: Math.round(x.user * 100) / 100, sys: Math.round(x.sys * 100) / 100 });
  return { main: round(main), others: round(others) };
}

/** A process's CPU with the children it has waited for, user and kernel apart (a PTY's writer is such a child). */
export function cpuWithChildren(pid: number): UserSys {
  const f = statFields(pid);
  return { user: (Number(f[11]) + Number(f[13])) / HZ, sys: (Number(f[12]) + Number(f[14])) / HZ };
}

/** The CPU several processes used between two readings of each, summed. */
export function cpuSpent(before: UserSys[], after: UserSys[]): UserSys {
  const sum = { user: 0, sys: 0 };
  after.forEach((a, i) => {
    sum.user += a.user - (before[i]?.user ?? 0);
    sum.sys += a.sys - (before[i]?.sys ?? 0);
  });
  return sum;
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
