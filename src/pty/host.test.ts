import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { PtyHost, type PtySpawnOptions } from './host.js';
import { readProcessTree } from './proctree.js';

const hosts: PtyHost[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const h of hosts.splice(0)) h.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
}

function start(script: string, o: Partial<PtySpawnOptions> = {}): { host: PtyHost; out: () => string } {
  const host = PtyHost.spawn({ command: 'bash', args: ['-c', script], cwd: tmpdir(), env: baseEnv(), cols: 80, rows: 24, ...o });
  hosts.push(host);
  let buf = '';
  host.onData((d) => (buf += d));
  return { host, out: () => buf };
}

async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'nightshift-host-'));
  dirs.push(d);
  return d;
}

describe('PtyHost', () => {
  it('reads output and reports the exit code', async () => {
    const { host, out } = start('echo hello; exit 7');
    expect(host.pid).toBeGreaterThan(0);
    const exit = await host.exited;
    expect(exit).toEqual({ exitCode: 7, signal: null });
    expect(out()).toContain('hello\r\n');
    expect(host.running).toBe(false);
  });

  it('names the signal that killed the child', async () => {
    const { host } = start('sleep 30');
    host.kill('SIGTERM');
    expect(await host.exited).toEqual({ exitCode: 0, signal: 'SIGTERM' });
  });

  it('names an aliased signal by its usual name', async () => {
    const { host } = start('ulimit -c 0; kill -ABRT $$');
    expect((await host.exited).signal).toBe('SIGABRT');
  });

  it('runs in the given cwd with the given env and TERM', async () => {
    const dir = tempDir();
    const { host, out } = start('pwd; echo "foo=$FOO term=$TERM"', { cwd: dir, env: { ...baseEnv(), FOO: 'bar' } });
    await host.exited;
    expect(out()).toContain(`${realpathSync(dir)}\r\n`);
    expect(out()).toContain('foo=bar term=xterm-256color');
  });

  it('passes a custom TERM name', async () => {
    const { host, out } = start('echo "term=$TERM"', { name: 'vt100' });
    await host.exited;
    expect(out()).toContain('term=vt100');
  });

  it('lets the child see a resize', async () => {
    const { host, out } = start('stty size; read x; stty size');
    await waitFor(() => out().includes('24 80'), 'initial size');
    host.resize(100, 30);
    await host.sendText('', { enter: true });
    await waitFor(() => out().includes('30 100'), 'new size');
    await host.exited;
  });

  it('answers a read -p prompt with sendText and enter', async () => {
    const { host, out } = start('read -p "Name? " n; echo "hello [$n]"');
    await waitFor(() => out().includes('Name? '), 'prompt');
    await host.sendText('world', { enter: true, pauseMs: 50 });
    await waitFor(() => out().includes('hello [world]'), 'answer');
    expect((await host.exited).exitCode).toBe(0);
  });

  it('interrupts sleep with ctrl-c', async () => {
    const { host, out } = start('echo start; sleep 30; echo after');
    // Without job control sleep shares bash's process group, whose leader
    // (bash) is what foregroundProcess() names; look for sleep in /proc.
    await waitFor(() => readProcessTree(host.pid).some((p) => p.comm === 'sleep'), 'sleep to start');
    expect(host.foregroundProcess()).toBe('bash');
    host.sendKey('ctrl-c');
    const exit = await host.exited;
    // bash re-kills itself with SIGINT when its foreground child died of it.
    expect(exit.signal === 'SIGINT' || exit.exitCode === 130).toBe(true);
    expect(out()).not.toContain('after');
  });

  it('sends several keys in order', async () => {
    const { host, out } = start('read k; echo "got [$k]"');
    await host.sendKeys(['a', 'B', '7', 'enter'], 20);
    await waitFor(() => out().includes('got [aB7]'), 'keys');
    await host.exited;
  });

  it('rejects a command that is not on PATH, and a bad path', () => {
    const o = { args: [], cwd: tmpdir(), env: baseEnv(), cols: 80, rows: 24 };
    expect(() => PtyHost.spawn({ ...o, command: 'no-such-command-nightshift' })).toThrow(InputError);
    expect(() => PtyHost.spawn({ ...o, command: 'no-such-command-nightshift' })).toThrow(
      'command not found: no-such-command-nightshift',
    );
    expect(() => PtyHost.spawn({ ...o, command: './missing-script' })).toThrow(/command not found: \.\/missing-script/);
    expect(() => PtyHost.spawn({ ...o, command: 'bash', env: { PATH: '/nonexistent' } })).toThrow(InputError);
  });

  it('rejects a missing cwd and a cwd that is a file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'f');
    writeFileSync(file, 'x');
    const o = { command: 'bash', args: [], env: baseEnv(), cols: 80, rows: 24 };
    expect(() => PtyHost.spawn({ ...o, cwd: path.join(dir, 'nope') })).toThrow(/working directory ".*nope" does not exist/);
    expect(() => PtyHost.spawn({ ...o, cwd: file })).toThrow(/is not a directory/);
  });

  it('rejects bad sizes and signal names', () => {
    const o = { command: 'bash', args: [], cwd: tmpdir(), env: baseEnv() };
    expect(() => PtyHost.spawn({ ...o, cols: 0, rows: 24 })).toThrow(InputError);
    const { host } = start('sleep 30');
    expect(() => host.resize(80.5, 24)).toThrow(/invalid terminal size 80.5x24/);
    expect(() => host.kill('SIGNOPE')).toThrow(InputError);
  });

  it('survives invalid UTF-8 from the child', async () => {
    const { host, out } = start("printf '\\xff\\xfe ok \\xc3\\x28 end\\n'");
    await host.exited;
    expect(out()).toContain('\ufffd\ufffd ok \ufffd( end');
  });

  it('ignores writes, resizes and kills after exit; late onExit still fires', async () => {
    const { host } = start('exit 0');
    await host.exited;
    host.write('ignored');
    host.sendKey('enter');
    await host.sendText('more', { enter: true, pauseMs: 1 });
    host.resize(100, 40);
    host.kill('SIGKILL');
    const late = await new Promise((resolve) => host.onExit(resolve));
    expect(late).toEqual({ exitCode: 0, signal: null });
    host.dispose();
    host.dispose();
  });

  it('hangs up on a running child when disposed', async () => {
    const { host } = start('sleep 30');
    await waitFor(() => readProcessTree(host.pid).some((p) => p.comm === 'sleep'), 'sleep to start');
    host.dispose();
    expect((await host.exited).signal).toBe('SIGHUP');
    host.write('after dispose');
  });
});
