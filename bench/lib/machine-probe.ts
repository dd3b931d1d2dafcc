/**
 * How fast this machine's PTYs are: bare node-pty reading `cat` of 32 MB
 * of base64, best of two. Every case file records it beside the cores and
 * the CPU model, so figures from two days (or two machines) can be set side
 * by side: ratios move with it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node-pty';
import { cleanEnv } from './proc.js';
import { MB } from './stats.js';

function readOnce(file: string): Promise<number> {
  const t0 = performance.now();
  const pty = spawn('cat', [file], { name: 'xterm-256color', cols: 120, rows: 40, cwd: process.cwd(), env: cleanEnv(), encoding: null });
  pty.onData(() => undefined);
  return new Promise((resolve) => pty.onExit(() => resolve(performance.now() - t0)));
}

/** MB/s of a bare reader, or null when the probe cannot run (no `base64`, no PTY). */
export async function bareReaderMBps(): Promise<number | null> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-probe-'));
  try {
    const file = path.join(dir, 'probe.b64');
    execFileSync('sh', ['-c', `head -c ${24 * MB} /dev/urandom | base64 > '${file}'`]);
    const mb = statSync(file).size / MB;
    const ms = Math.min(await readOnce(file), await readOnce(file));
    return Math.round((mb / (ms / 1000)) * 10) / 10;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
