import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { spawn, type IPty } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { keepLastWords } from './last-words.js';

/**
 * Spawns `sh -c script` paused (as backpressure pauses a job) and resumes after 500 ms, past node-pty's
 * 200 ms give-up, or never (`resume: false`: a reader that stays behind until the exit, whatever the load).
 */
function pausedRun(script: string, opts: { keep: boolean; encoding?: 'utf8' | null; resume?: boolean }): Promise<{ out: string; code: number }> {
  const pty: IPty = spawn('sh', ['-c', script], { cols: 80, rows: 24, encoding: opts.encoding ?? null });
  if (opts.keep) keepLastWords(pty);
  let out = '';
  pty.onData((d) => (out += typeof d === 'string' ? d : (d as unknown as Buffer).toString('utf8')));
  pty.pause();
  if (opts.resume !== false) setTimeout(() => pty.resume(), 500);
  return new Promise((resolve) => pty.onExit((e) => resolve({ out, code: e.exitCode })));
}

describe('keepLastWords: the output a child printed right before it exited', () => {
  it('is lost by node-pty alone when the reader is paused at the exit (the quirk this works around)', async () => {
    const r = await pausedRun('echo last-words; exit 3', { keep: false, resume: false });
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

  it('is kept when the terminal reports end-of-file before the child is reaped (a loaded machine)', async () => {
    // Under load the master's read() can return 0 while the kernel still holds output, and the stream
    // ends and destroys itself before node-pty reaps the child. The 0 cannot be forced here, so the test
    // ends the stream the way libuv does (push(null)) while 1500 lines (8 KB, within what the kernel holds)
    // wait unread in the terminal. The close waits for the child's exit (see the next test), and the reads
    // then find every line.
    const dir = mkdtempSync(join(tmpdir(), 'ns-lastwords-'));
    const [go, printed, end] = [join(dir, 'go'), join(dir, 'printed'), join(dir, 'end')];
    // Gated by files, not by typing (input typed before the shell is up is a race of its own) nor by a sleep:
    // the child exits only once the stream has ended, however loaded the machine.
    const pty: IPty = spawn('sh', ['-c', `while [ ! -e ${go} ]; do sleep 0.01; done; seq 1 1500; touch ${printed}; while [ ! -e ${end} ]; do sleep 0.01; done`], {
      cols: 80,
      rows: 24,
      encoding: null,
    });
    keepLastWords(pty);
    let out = '';
    pty.onData((d) => (out += (d as unknown as Buffer).toString('utf8')));
    const socket = (pty as unknown as { _socket: Readable & { _handle: { readStop(): number; readStart(): number } } })._socket;
    // pause() alone leaves libuv reading ahead (node restarts the reads to fill its buffer), and a read that
    // lands after the push(null) below is thrown away (a push after end-of-file), which libuv's own end-of-file
    // never allows. Stop the reads for good, as it would.
    pty.pause();
    socket._handle.readStop();
    socket._handle.readStart = () => 0;
    writeFileSync(go, '');
    const deadline = Date.now() + 10_000;
    while (!existsSync(printed)) {
      if (Date.now() > deadline) throw new Error(`seq did not finish printing in 10 s; the terminal held ${out.length} characters read`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const closed = new Promise((r) => socket.once('close', r));
    socket.push(null);
    // Not resume(): it would start libuv reading again, and that read would land after the end-of-file.
    socket.read(0);
    writeFileSync(end, '');
    await closed;
    pty.kill();
    rmSync(dir, { recursive: true, force: true });
    const lines = out.split('\r\n').filter((l) => /^\d+$/.test(l));
    expect(lines).toHaveLength(1500);
    expect(lines.every((l, i) => l === String(i + 1))).toBe(true);
  });

  it('leaves the terminal open until the child is reaped: one that closed its end before exiting gets no SIGHUP', async () => {
    // `rm -i` answered "n" closes stdin and stdout in an atexit handler, then exits 0; the master saw the terminal end
    // in between, closed, and the kernel's hang-up killed rm (reported SIGHUP, exit 129). The sleep widens that window.
    for (const encoding of [null, 'utf8'] as const) {
      const pty: IPty = spawn('bash', ['-c', 'echo bye; exec 0<&- 1>&- 2>&-; sleep 0.3; exit 3'], { cols: 80, rows: 24, encoding });
      keepLastWords(pty);
      let out = '';
      pty.onData((d) => (out += typeof d === 'string' ? d : (d as unknown as Buffer).toString('utf8')));
      const e = await new Promise<{ exitCode: number; signal?: number }>((resolve) => pty.onExit(resolve));
      expect({ ...e, out }).toEqual({ exitCode: 3, signal: 0, out: 'bye\r\n' });
    }
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
