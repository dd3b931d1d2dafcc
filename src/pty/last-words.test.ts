import { spawn, type IPty } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { keepLastWords } from './last-words.js';

/** Spawns `sh -c script` paused (as backpressure pauses a job), resumes after 500 ms: past node-pty's 200 ms give-up. */
function pausedRun(script: string, opts: { keep: boolean; encoding?: 'utf8' | null }): Promise<{ out: string; code: number }> {
  const pty: IPty = spawn('sh', ['-c', script], { cols: 80, rows: 24, encoding: opts.encoding ?? null });
  if (opts.keep) keepLastWords(pty);
  let out = '';
  pty.onData((d) => (out += typeof d === 'string' ? d : (d as unknown as Buffer).toString('utf8')));
  pty.pause();
  setTimeout(() => pty.resume(), 500);
  return new Promise((resolve) => pty.onExit((e) => resolve({ out, code: e.exitCode })));
}

describe('keepLastWords: the output a child printed right before it exited', () => {
  it('is lost by node-pty alone when the reader is paused at the exit (the quirk this works around)', async () => {
    const r = await pausedRun('echo last-words; exit 3', { keep: false });
    expect(r.code).toBe(3);
    expect(r.out).not.toContain('last-words');
  });

  it('is kept, every byte and in order, however much the terminal held', async () => {
    const r = await pausedRun('seq 1 30000; exit 2', { keep: true });
    expect(r.code).toBe(2);
    const lines = r.out.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(30000);
    expect(lines.every((l, i) => l === String(i + 1))).toBe(true);
  });

  it('comes as strings for a terminal spawned with an encoding, a character split across reads kept whole', async () => {
    const r = await pausedRun('printf "caf\\303\\251 \\342\\234\\223 done"; exit 0', { keep: true, encoding: 'utf8' });
    expect(r.out).toBe('café ✓ done');
  });

  it('reads nothing when the terminal is destroyed under a running child (a hang-up, not an exit)', async () => {
    const pty: IPty = spawn('sh', ['-c', 'yes flood'], { cols: 80, rows: 24, encoding: null });
    keepLastWords(pty);
    let bytes = 0;
    await new Promise<void>((resolve) => {
      const sub = pty.onData((d) => {
        bytes += (d as unknown as Buffer).length;
        sub.dispose();
        resolve();
      });
    });
    pty.pause();
    let after = 0;
    pty.onData((d) => (after += (d as unknown as Buffer).length));
    const exited = new Promise((resolve) => pty.onExit(resolve));
    (pty as IPty & { destroy: () => void }).destroy();
    await exited;
    expect(bytes).toBeGreaterThan(0);
    expect(after).toBe(0);
  });

  it('refuses a node-pty whose internals moved, rather than lose output silently', () => {
    expect(() => keepLastWords({} as IPty)).toThrow(/node-pty internals changed.*last-words\.ts/);
  });
});
