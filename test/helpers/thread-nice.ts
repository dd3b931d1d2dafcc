import { readFileSync } from 'node:fs';

/** A thread's nice value as the kernel has it: field 19 of /proc/self/task/TID/stat (after comm, which may hold spaces). */
export function kernelNice(tid: number | string): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
