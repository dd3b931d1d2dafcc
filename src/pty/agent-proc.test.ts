import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentHomeVars, agentOfProcess, foregroundGroup, withAgentVars } from './agent-proc.js';
import type { ProcInfo } from './proctree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A /proc with one process: its cmdline, exe link and environ as the kernel shows them (NUL-separated). */
function fakeProc(pid: number, o: { argv?: string[]; exe?: string; env?: string[] }): string {
  const root = mkdtempSync(join(tmpdir(), 'ns-fake-proc-'));
  dirs.push(root);
  const dir = join(root, String(pid));
  mkdirSync(dir);
  if (o.argv) writeFileSync(join(dir, 'cmdline'), `${o.argv.join('\0')}\0`);
  if (o.exe) symlinkSync(o.exe, join(dir, 'exe'));
  if (o.env) writeFileSync(join(dir, 'environ'), `${o.env.join('\0')}\0`);
  return root;
}

const proc = (pid: number, comm: string, o: Partial<ProcInfo> = {}): ProcInfo => ({
  pid, ppid: 1, pgrp: 100, tpgid: 100, comm, state: 'S', cpuTicks: 0, ioBytes: 0, threads: 1, ...o,
});

describe('agentOfProcess (/proc fixture)', () => {
  it('knows an agent by its comm, its executable or its command line', async () => {
    const none = fakeProc(7, {});
    expect(await agentOfProcess(proc(7, 'claude'), none)).toBe('claude');
    expect(await agentOfProcess(proc(7, 'codex'), none)).toBe('codex');
    const node = fakeProc(7, { argv: ['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js', '--permission-mode', 'default'], exe: '/usr/bin/node' });
    expect(await agentOfProcess(proc(7, 'node'), node)).toBe('claude');
    const gemini = fakeProc(7, { argv: ['node', '/opt/lib/node_modules/@google/gemini-cli/dist/index.js'] });
    expect(await agentOfProcess(proc(7, 'node'), gemini)).toBe('gemini');
    // The native 2.1.3xx binary run by its version path: comm is the version, exe says claude.
    const native = fakeProc(7, { argv: ['/root/.local/share/claude/versions/2.1.332'], exe: '/root/.local/share/claude/versions/2.1.332' });
    expect(await agentOfProcess(proc(7, '2.1.332'), native)).toBe('claude');
    const platform = fakeProc(7, { exe: '/x/node_modules/@anthropic-ai/claude-code-linux-x64/claude' });
    expect(await agentOfProcess(proc(7, 'MainThread'), platform)).toBe('claude');
  });

  it('a wrapper, a shell and a program that only mentions an agent are not one', async () => {
    const sh = fakeProc(7, { argv: ['sh', './launch.sh', '--', 'claude'], exe: '/usr/bin/dash' });
    expect(await agentOfProcess(proc(7, 'sh'), sh)).toBeUndefined();
    const grep = fakeProc(7, { argv: ['grep', 'claude', 'notes.txt'], exe: '/usr/bin/grep' });
    expect(await agentOfProcess(proc(7, 'grep'), grep)).toBeUndefined();
    // Gone between the tree read and ours: nothing, no throw.
    expect(await agentOfProcess(proc(8, 'node'), sh)).toBeUndefined();
  });

  it('reads only the home and config-dir variables of the agent, and says so when it cannot', async () => {
    const root = fakeProc(7, { env: ['PATH=/bin', 'HOME=/tmp/wrapped', 'ANTHROPIC_API_KEY=sk-secret', 'CLAUDE_CONFIG_DIR=/tmp/cfg', 'CODEX_HOME='] });
    expect(await agentHomeVars(7, root)).toEqual({ HOME: '/tmp/wrapped', CLAUDE_CONFIG_DIR: '/tmp/cfg' });
    expect(await agentHomeVars(8, root)).toBeUndefined();
    // The agent's word wins, an unset one included: the job's CLAUDE_CONFIG_DIR was not the agent's.
    expect(withAgentVars({ HOME: '/root', CLAUDE_CONFIG_DIR: '/old', PATH: '/bin' }, { HOME: '/tmp/wrapped' })).toEqual({ HOME: '/tmp/wrapped', PATH: '/bin' });
  });

  it('looks only in the terminal’s foreground group', () => {
    const tree = [proc(1, 'sh'), proc(2, 'claude', { pgrp: 200 }), proc(3, 'node'), proc(4, 'zombie', { state: 'Z' })];
    expect(foregroundGroup(tree).map((p) => p.pid)).toEqual([1, 3]);
    expect(foregroundGroup([proc(1, 'sh', { tpgid: -1 })])).toEqual([]);
  });
});
