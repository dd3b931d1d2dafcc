/**
 * Output flood through the PTY host (issue 12 point 4: ≥ 0.85× bare
 * node-pty). The same ~200 MB of base64 (150 MB of /dev/urandom) is `cat`
 * in a PTY and read (a) by node-pty in this process, as raw bytes, and
 * (b) by a PtyHostClient through a host process, and (c) the same with the
 * host also writing the asciicast recording, and (d) as a daemon job
 * (`nightshift daemon`, its PTY in the host, supervised: recording,
 * headless screen, watchdog), timed by the board's started and ended
 * times. Runs alternate; medians are compared; then the host's RSS per job. Usage: npm run build && node dist/bench/ptyhost-throughput.js [MB]
 */
import { execFileSync, spawn as spawnChild, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn as ptySpawn } from 'node-pty';
import { fileURLToPath } from 'node:url';
import { call } from '../src/daemon/client.js';
import { PtyHostClient } from '../src/ptyhost/client.js';

const RUNS = 3;
const MB = 1e6;
const COLS = 120;
const ROWS = 40;

interface Run {
  bytes: number;
  ms: number;
  /** CPU ms of this process (the reader) and of the host during the run. */
  cpuMs: number;
  hostCpuMs: number;
}

function env(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

function makeFlood(dir: string, randomMB: number): string {
  const file = path.join(dir, 'flood.b64');
  execFileSync('sh', ['-c', `head -c ${Math.round(randomMB * MB)} /dev/urandom | base64 > '${file}'`]);
  return file;
}

/** Bare node-pty, raw Buffers: the cheapest way to read a PTY in Node, so the strictest baseline. */
function bare(file: string): Promise<number> {
  const pty = ptySpawn('cat', [file], { name: 'xterm-256color', cols: COLS, rows: ROWS, cwd: process.cwd(), env: env(), encoding: null });
  let bytes = 0;
  pty.onData((d) => (bytes += (d as unknown as Buffer).length));
  return new Promise((resolve) => pty.onExit(() => resolve(bytes)));
}

function viaHost(client: PtyHostClient, file: string, id: string, recording?: string): Promise<number> {
  let bytes = 0;
  return new Promise((resolve) => {
    // Attach before the child prints: spawn and attach go out back to back on one socket.
    void client.spawn({ id, command: 'cat', args: [file], cwd: process.cwd(), env: env(), cols: COLS, rows: ROWS, ...(recording ? { recording } : {}) });
    void client.attach(id, (d) => (bytes += d.length), () => resolve(bytes));
  });
}

/** A daemon job that cats the file: from the board's `started` to its `ended` (the daemon's own clock, ms). */
async function daemonJob(stateDir: string, file: string, name: string): Promise<number> {
  await call(stateDir, 'submit', { spec: { name, command: ['cat', file], cwd: process.cwd(), env: {}, policy: null, rules: null, budgets: { wall_ms: null, tokens: null, no_progress_ms: null }, priority: 0, after: [] } });
  for (;;) {
    const { jobs } = (await call(stateDir, 'board')) as { jobs: Array<{ name: string; state: string; started: string | null; ended: string | null }> };
    const j = jobs.find((x) => x.name === name);
    if (j?.state === 'done') return Date.parse(j.ended!) - Date.parse(j.started!);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startDaemon(stateDir: string): Promise<ChildProcess> {
  const bin = fileURLToPath(new URL('../../bin/nightshift.js', import.meta.url));
  const child = spawnChild(process.execPath, [bin, 'daemon', '--state', stateDir, '--tick', '50ms'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('nightshift daemon: pid ')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited ${code}: ${err}`)));
  });
}

/** utime + stime of a process in ms (fields 14 and 15 of /proc/PID/stat, in 10 ms clock ticks). */
function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Times `read`, with the CPU this process and the host spent meanwhile. */
async function measure(hostPid: number, read: () => Promise<number>): Promise<Run> {
  const cpu0 = process.cpuUsage();
  const host0 = procCpuMs(hostPid);
  const t0 = performance.now();
  const bytes = await read();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { bytes, ms, cpuMs: (cpu.user + cpu.system) / 1000, hostCpuMs: procCpuMs(hostPid) - host0 };
}

function rssKB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]);
}

/**
 * Host RSS per job above its base (point 4: ≤ 1 MB): JOBS jobs that each
 * print more than the buffer holds, then wait; measured once all are quiet.
 */
async function rssPerJob(client: PtyHostClient, jobs: number): Promise<string> {
  const base = rssKB(client.hostPid);
  const script = "head -c 700000 /dev/zero | tr '\\0' x; echo; echo done; sleep 600";
  for (let i = 0; i < jobs; i++) await client.spawn({ id: `rss-${i}`, command: 'sh', args: ['-c', script], cwd: process.cwd(), env: env(), cols: COLS, rows: ROWS });
  const deadline = Date.now() + 60_000;
  while ((await client.list()).some((j) => j.id.startsWith('rss-') && j.outputBytes < 700_000)) {
    if (Date.now() > deadline) throw new Error('the RSS jobs did not print their output within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const after = rssKB(client.hostPid);
  for (let i = 0; i < jobs; i++) await client.kill(`rss-${i}`, 'SIGKILL');
  return `host RSS: ${(base / 1024).toFixed(1)} MB with no job, ${(after / 1024).toFixed(1)} MB with ${jobs} jobs holding full buffers: ${((after - base) / jobs / 1024).toFixed(2)} MB per job (goal ≤ 1)`;
}

/**
 * Every reader must see (nearly) the whole flood. Not exactly: when `cat`,
 * the session leader, exits, the kernel hangs up its terminal and drops what
 * is still queued in the PTY (a few KB), for bare node-pty as for the host.
 */
function checkCounts(runs: Run[]): void {
  const counts = runs.map((r) => r.bytes);
  if (Math.min(...counts) < 0.99 * Math.max(...counts)) throw new Error(`the readers saw very different byte counts: ${counts.join(', ')}`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median MB/s of the runs (each run's own bytes: the lost tail differs a little from run to run). */
function mbps(runs: Run[]): number {
  return median(runs.map((r) => r.bytes / MB / (r.ms / 1000)));
}

function row(name: string, runs: Run[], bare?: Run[]): string {
  const ratio = bare === undefined ? '' : `  ratio ${(mbps(runs) / mbps(bare)).toFixed(2)}× of bare`;
  const times = runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ');
  const cpu = `cpu: reader ${(median(runs.map((r) => r.cpuMs)) / 1000).toFixed(2)} s, host ${(median(runs.map((r) => r.hostCpuMs)) / 1000).toFixed(2)} s`;
  return `${name.padEnd(26)} ${mbps(runs).toFixed(0).padStart(5)} MB/s  (runs: ${times} s; ${cpu}; ${runs[0]!.bytes} bytes in the first)${ratio}`;
}

async function main(): Promise<void> {
  const randomMB = Number(process.argv[2] ?? 150);
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-ptyhost-'));
  const client = await PtyHostClient.connect(path.join(dir, 'state'), { hostArgs: ['--idle', '2s'] });
  try {
    const file = makeFlood(dir, randomMB);
    process.stdout.write(`flood: ${(statSync(file).size / MB).toFixed(0)} MB of base64 (${randomMB} MB random), ${RUNS} runs each, alternating\n`);
    const results = { bare: [] as Run[], host: [] as Run[], recorded: [] as Run[], daemon: [] as number[] };
    const daemonState = path.join(dir, 'state-daemon');
    const daemon = await startDaemon(daemonState);
    for (let i = 0; i < RUNS; i++) {
      const pid = client.hostPid;
      results.bare.push(await measure(pid, () => bare(file)));
      results.host.push(await measure(pid, () => viaHost(client, file, `flood-${i}`)));
      const cast = path.join(dir, `flood-${i}.cast`);
      results.recorded.push(await measure(pid, () => viaHost(client, file, `flood-rec-${i}`, cast)));
      rmSync(cast, { force: true });
      results.daemon.push(await daemonJob(daemonState, file, `flood-${i}`));
    }
    daemon.kill('SIGTERM');
    checkCounts([...results.bare, ...results.host, ...results.recorded]);
    process.stdout.write(`${row('bare node-pty (in-process)', results.bare)}\n`);
    process.stdout.write(`${row('through the PTY host', results.host, results.bare)}\n`);
    process.stdout.write(`${row('host + recording', results.recorded, results.bare)}\n`);
    const bareMs = median(results.bare.map((r) => r.ms));
    const daemonMs = median(results.daemon);
    process.stdout.write(`${'daemon job (supervised)'.padEnd(26)} ${(results.bare[0]!.bytes / MB / (daemonMs / 1000)).toFixed(0).padStart(5)} MB/s  (runs: ${results.daemon.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s, board started→ended)  ${(bareMs / daemonMs).toFixed(2)}× bare\n`);
    process.stdout.write(`goal: ≥ 0.85× of bare for a supervised job; through the host ${(mbps(results.host) / mbps(results.bare)).toFixed(2)}×, a daemon job ${(bareMs / daemonMs).toFixed(2)}×\n`);
    // A fresh host, so the floods' garbage is not in its base.
    const fresh = await PtyHostClient.connect(path.join(dir, 'state-rss'), { hostArgs: ['--idle', '2s'] });
    try {
      process.stdout.write(`${await rssPerJob(fresh, 40)}\n`);
    } finally {
      fresh.close();
      process.kill(fresh.hostPid, 'SIGTERM');
    }
  } finally {
    client.close();
    process.kill(client.hostPid, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
