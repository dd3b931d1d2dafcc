/** ThreadedPty runs its worker from the build (dist/), which `npm test` makes first. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import type { PtySpawnOptions } from './host.js';
import { ThreadedPty } from './pty-thread.js';
import { warmPtyThread } from './pty-thread-warm.js';

const ptys: ThreadedPty[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const p of ptys.splice(0)) p.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const N = 2_500_000;

async function start(script: string, o: Partial<PtySpawnOptions> = {}): Promise<{ pty: ThreadedPty; out: () => string }> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
  const pty = await ThreadedPty.spawn({ command: 'bash', args: ['-c', script], cwd: tmpdir(), env, cols: 80, rows: 24, ...o });
  ptys.push(pty);
  let buf = '';
  pty.onData((d) => (buf += d));
  return { pty, out: () => buf };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('ThreadedPty', () => {
  it('hands over the output and the exit status, with the pid of the child', async () => {
    const { pty, out } = await start('echo "pid $$"; exit 3');
    expect(await pty.exited).toEqual({ exitCode: 3, signal: null });
    expect(out()).toContain(`pid ${pty.pid}`);
    expect(pty.running).toBe(false);
  });

  it('takes a thread started ahead of need, then starts its own', async () => {
    warmPtyThread();
    const a = await start('echo one');
    const b = await start('echo two');
    await Promise.all([a.pty.exited, b.pty.exited]);
    expect(a.out()).toContain('one');
    expect(b.out()).toContain('two');
  });

  it('ends each thread by itself after its child exits, many at once, without aborting the process', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    const all = await Promise.all(Array.from({ length: 30 }, (_, i) => start(`echo ${i}`)));
    await Promise.all(all.map((p) => p.pty.exited));
    all.forEach((p, i) => expect(p.out()).toContain(String(i)));
    // Terminated from outside right after the exit, node-pty's pending callback took the process down ('napi_define_properties').
    await expect.poll(threads, { timeout: 20_000 }).toBeLessThanOrEqual(before + 2);
  });

  it('types into the child and signals it', async () => {
    const { pty, out } = await start('read -r line; echo "got:$line"; sleep 30');
    pty.write('ping\r');
    await expect.poll(out, { timeout: 10_000 }).toContain('got:ping');
    pty.kill('SIGTERM');
    expect(await pty.exited).toMatchObject({ signal: 'SIGTERM' });
    expect(() => pty.kill('SIGNOPE')).toThrow(InputError);
  });

  it('rejects a command that is not there before any thread starts', () => {
    expect(() => ThreadedPty.spawn({ command: 'no-such-command-here', args: [], cwd: tmpdir(), env: { PATH: '/usr/bin:/bin' }, cols: 80, rows: 24 })).toThrow(InputError);
  });

  it('holds a flood back while its reader is busy (the child waits), loses nothing, and splits no character between batches', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nightshift-pty-thread-'));
    dirs.push(dir);
    const done = path.join(dir, 'seq-done');
    // ~19 MB of numbered lines, far more than the 8 MB the thread may hold ahead of its reader, then 200k two-byte characters.
    const { pty } = await start(`seq 1 ${N}; touch '${done}'; head -c 200000 /dev/zero | tr '\\0' 'x' | sed 's/x/é/g'; echo; echo end`);
    const parts: string[] = [];
    let finishedDuringStall: boolean | undefined;
    pty.onData((d) => {
      parts.push(d);
      if (finishedDuringStall !== undefined) return;
      // The main thread busy for 3 s: unbounded, the thread would read all of seq's output (a fraction of a second).
      const until = performance.now() + 3_000;
      while (performance.now() < until);
      finishedDuringStall = existsSync(done);
    });
    await pty.exited;
    expect(finishedDuringStall).toBe(false);
    const lines = parts.join('').split('\r\n');
    const wrong = lines.slice(0, N).findIndex((l, i) => l !== String(i + 1));
    expect(wrong).toBe(-1);
    expect(lines.slice(N)).toEqual(['é'.repeat(200_000), 'end', '']);
  });

  it('holds the child while its owner pauses it, and lets it go on resume', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nightshift-pty-thread-'));
    dirs.push(dir);
    const done = path.join(dir, 'seq-done');
    const { pty, out } = await start(`seq 1 ${N}; touch '${done}'`);
    pty.pause();
    await new Promise((r) => setTimeout(r, 2_000));
    expect(existsSync(done)).toBe(false);
    pty.resume();
    await pty.exited;
    expect(out().trimEnd().endsWith(String(N))).toBe(true);
  });

  it('hangs up on a child still running when let go of', async () => {
    const { pty } = await start('sleep 60');
    const pid = pty.pid;
    expect(alive(pid)).toBe(true);
    pty.dispose();
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });
});
