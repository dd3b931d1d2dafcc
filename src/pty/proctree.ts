import { existsSync } from 'node:fs';
import type { TreeSample } from '../core/proc-activity.js';
import { listOrEmpty, readOrUndefined } from '../util/soft-read.js';

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Process group. */
  pgrp: number;
  /** Foreground process group of the controlling terminal, -1 without one. */
  tpgid: number;
  comm: string;
  /** R, S, D, Z, T, … as in /proc/PID/stat. */
  state: string;
  /** utime + stime, in clock ticks (USER_HZ, 100 on Linux). */
  cpuTicks: number;
  /** read_bytes + write_bytes from /proc/PID/io; 0 when unreadable. */
  ioBytes: number;
  /** Its threads (num_threads); 0 when the line did not say. */
  threads: number;
}

/**
 * The process `rootPid` and all its descendants, root first, then breadth
 * first. Processes that vanish mid-read are left out; an exited root gives [].
 * Orphans re-parented to init are no longer descendants and are not found.
 */
export function readProcessTree(rootPid: number, procRoot = '/proc'): ProcInfo[] {
  const root = readStat(procRoot, rootPid);
  if (root === undefined) return [];
  const scan = hasChildrenFiles(procRoot, rootPid) ? undefined : childrenFromScan(procRoot);
  const childrenOf = (p: ProcInfo) => (scan ? scan(p.pid) : childrenFromTasks(procRoot, p));
  const tree: ProcInfo[] = [root];
  const seen = new Set([rootPid]);
  for (let i = 0; i < tree.length; i++) {
    for (const pid of childrenOf(tree[i]!)) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      const info = readStat(procRoot, pid);
      if (info !== undefined) tree.push(info);
    }
  }
  for (const p of tree) p.ioBytes = readIoBytes(procRoot, p.pid);
  return tree;
}

/**
 * The process in the terminal's foreground group, preferring the deepest one
 * (a shell's foreground job is below the shell, which shares the group when
 * job control is off). Zombies are skipped.
 */
export function foregroundProcess(tree: ProcInfo[]): ProcInfo | undefined {
  const tpgid = tree[0]?.tpgid ?? -1;
  if (tpgid <= 0) return undefined;
  const depth = depths(tree);
  let best: ProcInfo | undefined;
  let bestDepth = -1;
  for (const p of tree) {
    const d = depth.get(p.pid) ?? 0;
    if (p.pgrp === tpgid && p.state !== 'Z' && d >= bestDepth) {
      best = p;
      bestDepth = d;
    }
  }
  return best;
}

export function summarizeTree(tree: ProcInfo[], t: number): TreeSample {
  let cpuTicks = 0;
  let ioBytes = 0;
  const pids: number[] = [];
  for (const p of tree) {
    cpuTicks += p.cpuTicks;
    ioBytes += p.ioBytes;
    pids.push(p.pid);
  }
  return { t, cpuTicks, ioBytes, pids, root: tree[0]?.comm ?? '' };
}

/**
 * Parses one /proc/PID/stat line. comm is free text (it may hold spaces and
 * parentheses), so it runs from the first '(' to the LAST ')'.
 */
export function parseStat(text: string): ProcInfo | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  // Fields after comm, numbered as in proc(5) minus 3: state=0, ppid=1, …
  const f = text.slice(close + 1).trim().split(/\s+/);
  if (f.length < 13 || !Number.isInteger(pid)) return undefined;
  return {
    pid,
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    tpgid: Number(f[5]),
    comm: text.slice(open + 1, close),
    state: f[0]!,
    cpuTicks: Number(f[11]) + Number(f[12]),
    ioBytes: 0,
    threads: Number(f[17] ?? 0) || 0,
  };
}

function readStat(procRoot: string, pid: number): ProcInfo | undefined {
  const text = readOrUndefined(`${procRoot}/${pid}/stat`);
  return text === undefined ? undefined : parseStat(text);
}

const READ_BYTES = /^read_bytes:\s*(\d+)/m;
const WRITE_BYTES = /^write_bytes:\s*(\d+)/m;

/** /proc/PID/io needs ptrace access; other users' processes read as 0. */
function readIoBytes(procRoot: string, pid: number): number {
  const text = readOrUndefined(`${procRoot}/${pid}/io`);
  if (text === undefined) return 0;
  return Number(READ_BYTES.exec(text)?.[1] ?? 0) + Number(WRITE_BYTES.exec(text)?.[1] ?? 0);
}

/** Whether the kernel has CONFIG_PROC_CHILDREN: asked once per /proc, since a sampler reads trees for hours. */
const childrenFiles = new Map<string, boolean>();
function hasChildrenFiles(procRoot: string, pid: number): boolean {
  let has = childrenFiles.get(procRoot);
  if (has === undefined) {
    has = existsSync(`${procRoot}/${pid}/task/${pid}/children`);
    // Only a yes is kept: a no may be a process that exited between its stat and this look.
    if (has) childrenFiles.set(procRoot, has);
  }
  return has;
}

/**
 * Children via /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN). Each
 * thread lists only the children it forked itself, so all threads are read;
 * a single-threaded process (most shells and tools) has just its own file,
 * which spares listing the task folder on every sample.
 */
function childrenFromTasks(procRoot: string, p: ProcInfo): number[] {
  const out: number[] = [];
  const pid = p.pid;
  for (const tid of p.threads === 1 ? [String(pid)] : listOrEmpty(`${procRoot}/${pid}/task`)) {
    const text = readOrUndefined(`${procRoot}/${pid}/task/${tid}/children`);
    if (text === undefined) continue;
    for (const word of text.split(' ')) {
      if (word.trim() !== '') out.push(Number(word));
    }
  }
  return out;
}

/** Fallback without CONFIG_PROC_CHILDREN: one pass over every process's stat. */
function childrenFromScan(procRoot: string): (pid: number) => number[] {
  const byParent = new Map<number, number[]>();
  for (const name of listOrEmpty(procRoot)) {
    if (!/^\d+$/.test(name)) continue;
    const info = readStat(procRoot, Number(name));
    if (info === undefined) continue;
    const list = byParent.get(info.ppid);
    if (list) list.push(info.pid);
    else byParent.set(info.ppid, [info.pid]);
  }
  return (pid) => byParent.get(pid) ?? [];
}

function depths(tree: ProcInfo[]): Map<number, number> {
  const depth = new Map<number, number>();
  // The tree is parent-before-child, so each parent's depth is known first.
  for (const p of tree) depth.set(p.pid, (depth.get(p.ppid) ?? -1) + 1);
  return depth;
}
