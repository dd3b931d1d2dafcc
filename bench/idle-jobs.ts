/**
 * Idle cost of 100 daemon jobs (issue 12 point 4: no worse than before the
 * PTY host): 50 blocked at a `[y/N]` question, 50 sleeping. Once all are
 * live and settled, the CPU of the daemon and of its PTY host over 30 s is
 * read from /proc, and their RSS. `ROOT` is the nightshift checkout whose
 * bin/nightshift.js runs (default this one), so an older build can be
 * measured by the same script.
 * Usage: npm run build && node dist/bench/idle-jobs.js [ROOT] [JOBS] [SECONDS]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call } from '../src/daemon/client.js';

const HERE = fileURLToPath(new URL('../..', import.meta.url));
/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
const HZ = 100;

interface Job {
  name: string;
  state: string;
}

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function rssMB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

function hostPid(state: string): number | null {
  try {
    return Number(readFileSync(path.join(state, 'run', 'ptyhost.lock'), 'utf8').trim());
  } catch {
    return null;
  }
}

function startDaemon(root: string, state: string, jobs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(root, 'bin', 'nightshift.js'), 'daemon', '--state', state, '--max-running', String(jobs)], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('nightshift daemon: pid ')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited ${code}: ${err}`)));
  });
}

const spec = (name: string, command: string[]) => ({ name, command, cwd: tmpdir(), env: {}, policy: null, rules: null, budgets: { wall_ms: null, tokens: null, no_progress_ms: null }, priority: 0, after: [] });

async function waitFor(state: string, n: number): Promise<void> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    const { jobs } = (await call(state, 'board')) as { jobs: Job[] };
    const blocked = jobs.filter((j) => j.state === 'blocked').length;
    const running = jobs.filter((j) => j.state === 'running').length;
    if (blocked >= n / 2 && blocked + running === n) return;
  }
  throw new Error('the jobs did not settle within 120 s');
}

async function main(): Promise<void> {
  const root = path.resolve(process.argv[2] ?? HERE);
  const n = Number(process.argv[3] ?? 100);
  const seconds = Number(process.argv[4] ?? 30);
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-idle-'));
  const state = path.join(dir, 'state');
  const daemon = await startDaemon(root, state, n);
  try {
    for (let i = 0; i < n; i++) {
      const command = i % 2 ? ['sleep', '3600'] : ['bash', '-c', 'read -p "Continue with the upgrade? [y/N] " a'];
      await call(state, 'submit', { spec: spec(`idle-${i}`, command) });
    }
    await waitFor(state, n);
    // Let the start-up settle (first samples, first screens) before measuring.
    await new Promise((r) => setTimeout(r, 5_000));
    const host = hostPid(state);
    const pids = [daemon.pid!, ...(host ? [host] : [])];
    const before = pids.map(cpuTicks);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const used = pids.map((p, i) => (cpuTicks(p) - before[i]!) / HZ / seconds);
    const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
    process.stdout.write(`${root}: ${n} idle jobs (half blocked at a [y/N] question, half sleeping), ${seconds} s\n`);
    process.stdout.write(`daemon: ${pct(used[0]!)} of a core, RSS ${rssMB(pids[0]!).toFixed(0)} MB\n`);
    if (host) process.stdout.write(`PTY host: ${pct(used[1]!)} of a core, RSS ${rssMB(host).toFixed(0)} MB\n`);
    process.stdout.write(`total: ${pct(used.reduce((a, b) => a + b, 0))} of a core\n`);
  } finally {
    await call(state, 'stop', { now: true }).catch(() => undefined);
    await new Promise((r) => daemon.once('exit', r));
    const host = hostPid(state);
    if (host) {
      try {
        process.kill(host, 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
