import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killTree } from '../../test/helpers/pty-tree.js';
import { PtyHost } from './host.js';
import { foregroundProcess, parseStat, readProcessTree, summarizeTree, type ProcInfo } from './proctree.js';

const hosts: PtyHost[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const h of hosts.splice(0)) killTree(h);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function spawn(command: string, args: string[]): PtyHost {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), PS1: '$ ' };
  const host = PtyHost.spawn({ command, args, cwd: tmpdir(), env, cols: 80, rows: 24 });
  hosts.push(host);
  return host;
}

async function waitFor<T>(get: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const byComm = (tree: ProcInfo[], re: RegExp) => tree.find((p) => re.test(p.comm));

describe('readProcessTree', () => {
  it('finds descendants; the busy child burns CPU, sleep does not', async () => {
    const host = spawn('bash', ['-c', 'sleep 30 & python3 -c "while True: pass"']);
    const first = await waitFor(() => {
      const tree = readProcessTree(host.pid);
      return byComm(tree, /^python/) && byComm(tree, /^sleep$/) ? tree : undefined;
    }, 'sleep and python3 to start');
    expect(first[0]!.pid).toBe(host.pid);
    expect(first[0]!.comm).toBe('bash');
    const pids = new Set(first.map((p) => p.pid));
    for (const p of first.slice(1)) expect(pids.has(p.ppid)).toBe(true);
    const sleep0 = byComm(first, /^sleep$/)!;
    const py0 = byComm(first, /^python/)!;

    const later = await waitFor(() => {
      const tree = readProcessTree(host.pid);
      const py = tree.find((p) => p.pid === py0.pid);
      return py && py.cpuTicks >= py0.cpuTicks + 10 ? tree : undefined;
    }, 'python3 to use 10 ticks of CPU');
    expect(later.find((p) => p.pid === sleep0.pid)!.cpuTicks).toBe(sleep0.cpuTicks);

    const sample = summarizeTree(later, 1234);
    expect(sample.t).toBe(1234);
    expect(sample.pids).toEqual(later.map((p) => p.pid));
    expect(sample.cpuTicks).toBe(later.reduce((n, p) => n + p.cpuTicks, 0));
    expect(sample.ioBytes).toBeGreaterThanOrEqual(0);
    expect(sample.root).toBe(later[0]!.comm);
  });

  it('reads a comm holding spaces and parentheses', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nightshift-proc-'));
    dirs.push(dir);
    const odd = path.join(dir, 'a) b');
    copyFileSync('/bin/sleep', odd);
    const host = spawn(odd, ['30']);
    const root = await waitFor(() => {
      const p = readProcessTree(host.pid)[0];
      return p?.comm === 'a) b' ? p : undefined;
    }, 'the odd binary to exec');
    // Fields after comm parse right only if the split found the last ')'.
    expect(root.state).toMatch(/^[RSD]$/);
    expect(root.ppid).toBe(process.pid);
    expect(root.pgrp).toBe(host.pid);
    expect(root.tpgid).toBe(host.pid);
  });

  it('returns [] for a process that does not exist', () => {
    expect(readProcessTree(0x7ffffff0)).toEqual([]);
  });
});

describe('foregroundProcess', () => {
  it('picks the foreground job of an interactive shell, not a background one', async () => {
    const host = spawn('bash', ['--norc', '--noprofile', '-i']);
    await host.sendText('sleep 31 & sleep 30', { enter: true, pauseMs: 50 });
    const tree = await waitFor(() => {
      const t = readProcessTree(host.pid);
      return t.filter((p) => p.comm === 'sleep').length === 2 && t[0]!.tpgid !== host.pid ? t : undefined;
    }, 'both sleeps, one in the foreground');
    const fg = foregroundProcess(tree)!;
    expect(fg.comm).toBe('sleep');
    expect(fg.pgrp).toBe(tree[0]!.tpgid);
    const bg = tree.find((p) => p.comm === 'sleep' && p.pid !== fg.pid)!;
    expect(bg.pgrp).not.toBe(fg.pgrp);
  });

  it("finds a child forked by another thread than the parent's main one", async () => {
    // Each thread's children file lists only what it forked: a single-threaded fast path must not hide these.
    const host = spawn('python3', ['-c', "import subprocess, threading; t = threading.Thread(target=lambda: subprocess.run(['sleep', '30'])); t.start(); t.join()"]);
    const tree = await waitFor(() => {
      const t = readProcessTree(host.pid);
      return byComm(t, /^sleep$/) ? t : undefined;
    }, 'the thread-forked sleep');
    expect(tree[0]!.threads).toBeGreaterThan(1);
    expect(byComm(tree, /^sleep$/)!.ppid).toBe(host.pid);
    expect(byComm(tree, /^sleep$/)!.threads).toBe(1);
  });

  it('prefers the deepest process of the foreground group', () => {
    const p = (pid: number, ppid: number, pgrp: number, state = 'S'): ProcInfo => ({
      pid, ppid, pgrp, tpgid: 10, comm: `p${pid}`, state, cpuTicks: 0, ioBytes: 0, threads: 1,
    });
    expect(foregroundProcess([p(10, 1, 10), p(11, 10, 10), p(12, 11, 10), p(13, 10, 13)])!.pid).toBe(12);
    expect(foregroundProcess([p(10, 1, 10), p(11, 10, 10), p(12, 11, 10, 'Z')])!.pid).toBe(11);
    expect(foregroundProcess([{ ...p(10, 1, 10), tpgid: -1 }])).toBeUndefined();
    expect(foregroundProcess([])).toBeUndefined();
  });
});

describe('parseStat', () => {
  it('splits at the last parenthesis', () => {
    const rest = 'S 1 42 42 34816 42 4194560 0 0 0 0 7 3 0 0 20 0 1 0 100 0 0';
    expect(parseStat(`42 (x) (y) ) ${rest}`)).toMatchObject({
      pid: 42, comm: 'x) (y) ', state: 'S', ppid: 1, pgrp: 42, tpgid: 42, cpuTicks: 10, threads: 1,
    });
    expect(parseStat('42 (truncated')).toBeUndefined();
    expect(parseStat('')).toBeUndefined();
  });
});
