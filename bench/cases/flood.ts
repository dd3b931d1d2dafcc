/**
 * Output flood: ~200 MB of base64 lines (150 MB of /dev/urandom) is `cat` in
 * a PTY and read by
 *  - bare node-pty in this process, raw Buffers (the anchor: the cheapest way to read a PTY in Node);
 *  - a PtyHostClient through a PTY host, and the same with the host writing the recording;
 *  - `nightshift run --quiet -- cat FILE`, the whole process timed (a `true` run's start-up cost is reported beside it);
 *  - a daemon job (`nightshift daemon`, its PTY in the host, supervised), timed by the board's started → ended;
 *  - tmux (the second anchor): `new-session -d` running cat on a private server, until the pane's command exits.
 * Runs alternate; medians of 3 (smoke: 1 run, 10 MB). While a daemon job
 * floods, `board` is called over the socket every 100 ms (latency max and
 * p99) and the daemon's RSS is sampled (growth). Last, the RSS per job of
 * a fresh host with jobs whose buffers are full.
 */
import { execFileSync, spawn as spawnChild } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn as ptySpawn } from 'node-pty';
import { PtyHostClient } from '../../src/ptyhost/client.js';
import { Daemon } from '../lib/daemon.js';
import { cleanEnv, cpuSeconds, cpuSpent, cpuWithChildren, rssMB, threadCpu, threadCpuSplit, type UserSys } from '../lib/proc.js';
import { MB, max, median, percentile, sleep } from '../lib/stats.js';
import { haveTmux, Tmux } from '../lib/tmux.js';
import { logger, row, type CaseOptions, type CaseResult, type Row } from '../lib/types.js';

const COLS = 120;
const ROWS = 40;
const RATIO_GOAL = 0.9;
const HOST_GOAL = 0.85;
const REC_GOAL = 0.9;
const BOARD_GOAL_MS = 100;
const RSS_GROWTH_GOAL_MB = 64;
const HOST_RSS_PER_JOB_GOAL_MB = 1;

interface Timed {
  ms: number;
  bytes?: number;
  /** The reading thread's CPU (bare node-pty: this process's main thread). */
  cpu?: UserSys;
  /** Every process of the path, with the children they reaped (cat), user and kernel. */
  total?: UserSys;
}

/** Runs `f` and adds the CPU the processes `pids` (with their reaped children) used meanwhile; a pid gone by the end counts nothing. */
async function withCpu<T extends Timed>(pids: () => number[], f: () => Promise<T>): Promise<T> {
  const read = (ps: number[]) => ps.map((p) => { try { return cpuWithChildren(p); } catch { return { user: 0, sys: 0 }; } });
  const ps = pids();
  const before = read(ps);
  const r = await f();
  return { ...r, total: cpuSpent(before, read(ps)) };
}

interface DaemonRun extends Timed {
  boardMs: number[];
  rssBeforeMB: number;
  rssPeakMB: number;
  hostRssPeakMB: number | null;
  daemonCpuS: number;
  hostCpuS: number | null;
  /** Where the CPU went, user and kernel, main thread and the rest (the host's recording thread, the daemon's board writer). */
  threads: { daemon: { main: UserSys; others: UserSys }; host: { main: UserSys; others: UserSys } | null };
}

function makeFlood(dir: string, randomMB: number): string {
  const file = path.join(dir, 'flood.b64');
  execFileSync('sh', ['-c', `head -c ${Math.round(randomMB * MB)} /dev/urandom | base64 > '${file}'`]);
  return file;
}

/** The slowest round of a path against tmux in the same round (tmux's time / the path's: above 1 is ahead); fails if any round is behind. */
function everyRound(name: string, xs: Timed[], tmux: Timed[]): Row {
  const ratios = xs.map((x, i) => tmux[i]!.ms / x.ms);
  const worst = Math.min(...ratios);
  return row(`flood: ${name} against tmux, the worst round (speed ratio)`, worst, '×', { goal: 'every round ≥ 1', pass: worst >= 1 });
}

/** Bare node-pty, raw Buffers. */
function bare(file: string): Promise<Timed> {
  const threads0 = threadCpu(process.pid);
  const t0 = performance.now();
  const pty = ptySpawn('cat', [file], { name: 'xterm-256color', cols: COLS, rows: ROWS, cwd: process.cwd(), env: cleanEnv(), encoding: null });
  let bytes = 0;
  pty.onData((d) => (bytes += (d as unknown as Buffer).length));
  return new Promise((resolve) => pty.onExit(() => resolve({ ms: performance.now() - t0, bytes, cpu: threadCpuSplit(process.pid, threads0, threadCpu(process.pid)).main })));
}

function viaHost(client: PtyHostClient, file: string, id: string, recording?: string): Promise<Timed> {
  let bytes = 0;
  const t0 = performance.now();
  return new Promise((resolve) => {
    // Attach before the child prints: spawn and attach go out back to back on one socket.
    void client.spawn({ id, command: 'cat', args: [file], cwd: process.cwd(), env: cleanEnv(), cols: COLS, rows: ROWS, ...(recording ? { recording } : {}) });
    void client.attach(id, (d) => (bytes += d.length), () => resolve({ ms: performance.now() - t0, bytes }));
  });
}

/** `nightshift run --quiet --state STATE -- ARGV…`, the whole process, start to exit. */
function nsRun(root: string, state: string, argv: string[]): Promise<Timed> {
  const t0 = performance.now();
  const child = spawnChild(process.execPath, [path.join(root, 'bin', 'nightshift.js'), 'run', '--quiet', '--state', state, '--cols', String(COLS), '--rows', String(ROWS), '--', ...argv], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: cleanEnv(),
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve({ ms });
      else reject(new Error(`nightshift run ${argv.join(' ')} exited ${code}: ${err}`));
    });
  });
}

/** A daemon job that cats the file, timed by the board (started → ended), with `board` called every 100 ms meanwhile. */
async function daemonJob(d: Daemon, file: string, name: string): Promise<DaemonRun> {
  const host0 = d.hostPid();
  const rssBeforeMB = rssMB(d.pid);
  const cpu0 = cpuSeconds(d.pid);
  const hostCpu0 = host0 === null ? null : cpuSeconds(host0);
  const daemonThreads0 = threadCpu(d.pid);
  const hostThreads0 = host0 === null ? null : threadCpu(host0);
  await d.submit(name, ['cat', file], process.cwd());
  const boardMs: number[] = [];
  let rssPeakMB = rssBeforeMB;
  let hostRssPeakMB: number | null = null;
  for (let next = performance.now(); ; ) {
    const t0 = performance.now();
    const jobs = await d.board();
    boardMs.push(performance.now() - t0);
    rssPeakMB = Math.max(rssPeakMB, rssMB(d.pid));
    const host = d.hostPid();
    if (host !== null) hostRssPeakMB = Math.max(hostRssPeakMB ?? 0, rssMB(host));
    const j = jobs.find((x) => x.name === name);
    if (j?.state === 'done') {
      if (j.reason.code !== 'exit' || j.exit?.code !== 0) throw new Error(`the flood job ended ${j.state}/${j.reason.code} (exit ${JSON.stringify(j.exit)})`);
      const host1 = d.hostPid();
      return {
        ms: Date.parse(j.ended!) - Date.parse(j.started!),
        boardMs,
        rssBeforeMB,
        rssPeakMB,
        hostRssPeakMB,
        daemonCpuS: cpuSeconds(d.pid) - cpu0,
        hostCpuS: host1 !== null && host1 === host0 && hostCpu0 !== null ? cpuSeconds(host1) - hostCpu0 : null,
        threads: {
          daemon: threadCpuSplit(d.pid, daemonThreads0, threadCpu(d.pid)),
          host: host1 !== null && host1 === host0 && hostThreads0 !== null ? threadCpuSplit(host1, hostThreads0, threadCpu(host1)) : null,
        },
      };
    }
    next += 100;
    await sleep(Math.max(0, next - performance.now()));
  }
}

/** tmux: a new session on the running private server cats the file, then signals a channel; from new-session to the signal. */
async function viaTmux(tmux: Tmux, file: string, i: number): Promise<Timed> {
  const channel = `flood-done-${i}`;
  const waiter = spawnChild(tmux.argv('wait-for', channel)[0]!, tmux.argv('wait-for', channel).slice(1), { stdio: 'ignore' });
  const waited = new Promise<void>((r) => waiter.once('exit', () => r()));
  await sleep(50);
  const t0 = performance.now();
  await tmux.newSession(`flood-${i}`, `cat '${file}'; ${tmux.argv('wait-for', '-S', channel).join(' ')}`, COLS, ROWS);
  await waited;
  return { ms: performance.now() - t0 };
}

/** Host RSS per job above its base: JOBS jobs that each print more than the buffer holds, then wait; measured once all are quiet. */
async function hostRssPerJob(client: PtyHostClient, jobs: number): Promise<{ baseMB: number; afterMB: number; perJobMB: number; jobs: number }> {
  const baseMB = rssMB(client.hostPid);
  const script = "head -c 700000 /dev/zero | tr '\\0' x; echo; echo done; sleep 600";
  for (let i = 0; i < jobs; i++) await client.spawn({ id: `rss-${i}`, command: 'sh', args: ['-c', script], cwd: process.cwd(), env: cleanEnv(), cols: COLS, rows: ROWS });
  const deadline = Date.now() + 60_000;
  while ((await client.list()).some((j) => j.id.startsWith('rss-') && j.outputBytes < 700_000)) {
    if (Date.now() > deadline) throw new Error('the RSS jobs did not print their output within 60 s');
    await sleep(200);
  }
  const afterMB = rssMB(client.hostPid);
  for (let i = 0; i < jobs; i++) await client.kill(`rss-${i}`, 'SIGKILL');
  return { baseMB, afterMB, perJobMB: (afterMB - baseMB) / jobs, jobs };
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const runs = opts.smoke ? 1 : 3;
  const randomMB = opts.smoke ? 7.5 : 150;
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-flood-'));
  const tmux = haveTmux() ? new Tmux() : null;
  let client: PtyHostClient | null = null;
  let daemon: Daemon | null = null;
  try {
    const file = makeFlood(dir, randomMB);
    const fileMB = statSync(file).size / MB;
    log(`flood: ${fileMB.toFixed(0)} MB of base64, ${runs} run(s) of each path, alternating`);
    client = await PtyHostClient.connect(path.join(dir, 'state-host'), { hostArgs: ['--idle', '2s'] });
    daemon = await Daemon.start(opts.root, path.join(dir, 'state-daemon'));
    if (tmux) await tmux.newSession('keep', 'sleep 100000', COLS, ROWS);
    const tmuxPid = tmux ? await tmux.serverPid() : null;
    const self = process.pid;
    const host = client.hostPid;
    const r = { bare: [] as Timed[], host: [] as Timed[], recorded: [] as Timed[], run: [] as Timed[], runTrue: [] as Timed[], daemon: [] as DaemonRun[], tmux: [] as Timed[] };
    for (let i = 0; i < runs; i++) {
      r.bare.push(await withCpu(() => [self], () => bare(file)));
      r.host.push(await withCpu(() => [self, host], () => viaHost(client!, file, `flood-${i}`)));
      const cast = path.join(dir, `flood-${i}.cast`);
      r.recorded.push(await withCpu(() => [self, host], () => viaHost(client!, file, `flood-rec-${i}`, cast)));
      rmSync(cast, { force: true });
      const runState = path.join(dir, `state-run-${i}`);
      r.runTrue.push(await nsRun(opts.root, runState, ['true']));
      r.run.push(await withCpu(() => [self], () => nsRun(opts.root, runState, ['cat', file])));
      rmSync(runState, { recursive: true, force: true });
      const d = daemon;
      r.daemon.push(await withCpu(() => [d.pid, d.hostPid() ?? d.pid].filter((p, k, a) => a.indexOf(p) === k), () => daemonJob(d, file, `flood-${i}`)));
      if (tmux) r.tmux.push(await withCpu(() => [tmuxPid!], () => viaTmux(tmux, file, i)));
      log(
        `  run ${i + 1}: bare ${(r.bare[i]!.ms / 1000).toFixed(2)} s, host ${(r.host[i]!.ms / 1000).toFixed(2)} s, host+rec ${(r.recorded[i]!.ms / 1000).toFixed(2)} s, ` +
          `run ${(r.run[i]!.ms / 1000).toFixed(2)} s (true: ${(r.runTrue[i]!.ms / 1000).toFixed(2)} s), daemon job ${(r.daemon[i]!.ms / 1000).toFixed(2)} s` +
          (tmux ? `, tmux ${(r.tmux[i]!.ms / 1000).toFixed(2)} s` : ''),
      );
      const us = (x: UserSys | undefined) => (x ? `${x.user.toFixed(2)}+${x.sys.toFixed(2)}` : '?');
      const t = r.daemon[i]!.threads;
      log(`    CPU s, user+kernel: bare reader ${us(r.bare[i]!.cpu)}; daemon job: host main ${us(t.host?.main)}, host other threads ${us(t.host?.others)}, daemon main ${us(t.daemon.main)}, daemon other threads ${us(t.daemon.others)}`);
    }
    const counts = [...r.bare, ...r.host, ...r.recorded].map((x) => x.bytes!);
    // Not exactly equal: when cat exits the kernel hangs up its terminal and drops what is still queued (a few KB).
    if (Math.min(...counts) < 0.99 * Math.max(...counts)) throw new Error(`the readers saw very different byte counts: ${counts.join(', ')}`);
    const mbps = (xs: Timed[]) => fileMB / (median(xs.map((x) => x.ms)) / 1000);
    const bareMBps = mbps(r.bare);
    const tmuxMBps = tmux ? mbps(r.tmux) : null;
    const vsBare = (metric: string, xs: Timed[], goal: number | null): Row =>
      row(metric, mbps(xs), 'MB/s', {
        anchor: bareMBps,
        anchorName: 'bare node-pty',
        goal: goal === null ? '' : `ratio ≥ ${goal}`,
        pass: goal === null ? null : mbps(xs) / bareMBps >= goal,
      });
    const boardMs = r.daemon.flatMap((x) => x.boardMs);
    const growth = max(r.daemon.map((x) => x.rssPeakMB - x.rssBeforeMB));
    const rows: Row[] = [
      vsBare('flood: nightshift run (whole process)', r.run, RATIO_GOAL),
      // Context, no goal: how much of run's gap is its fixed start-up (Node, modules, the PTY thread) rather than the stream.
      vsBare('flood: nightshift run less its start-up (run − `run -- true`, same round)', r.run.map((x, i) => ({ ms: x.ms - r.runTrue[i]!.ms })), null),
      vsBare('flood: daemon job (board started→ended)', r.daemon, RATIO_GOAL),
      vsBare('flood: through the PTY host', r.host, HOST_GOAL),
      vsBare('flood: PTY host + recording', r.recorded, null),
      row('flood: PTY host + recording vs the host alone', mbps(r.recorded), 'MB/s', {
        anchor: mbps(r.host),
        anchorName: 'PTY host alone',
        goal: `ratio ≥ ${REC_GOAL}`,
        pass: mbps(r.recorded) / mbps(r.host) >= REC_GOAL,
      }),
    ];
    if (tmuxMBps !== null) {
      rows.push(row('flood: nightshift run vs tmux', mbps(r.run), 'MB/s', { anchor: tmuxMBps, anchorName: 'tmux' }));
      rows.push(row('flood: daemon job vs tmux', mbps(r.daemon), 'MB/s', { anchor: tmuxMBps, anchorName: 'tmux' }));
      rows.push(everyRound('nightshift run', r.run, r.tmux), everyRound('daemon job', r.daemon, r.tmux));
    }
    // So a change that only moves work from one thread or process to another shows.
    const paths: Array<[string, Timed[]]> = [['bare node-pty', r.bare], ['PTY host', r.host], ['PTY host + recording', r.recorded], ['nightshift run', r.run], ['daemon job', r.daemon], ['tmux', r.tmux]];
    const per100 = (xs: Timed[]) => median(xs.map((x) => ((x.total!.user + x.total!.sys) * 100) / fileMB));
    for (const [name, xs] of paths) {
      if (xs.length === 0 || xs.some((x) => !x.total)) continue;
      rows.push(row(`flood CPU per 100 MB: ${name} (user+kernel, all its processes)`, per100(xs), 's', { anchor: per100(r.bare), anchorName: 'bare node-pty' }));
    }
    rows.push(
      row('nightshift run start-up (`run -- true`, whole process)', median(r.runTrue.map((x) => x.ms)) / 1000, 's'),
      row('board call latency during a daemon flood: max', max(boardMs), 'ms', { goal: `< ${BOARD_GOAL_MS} ms`, pass: max(boardMs) < BOARD_GOAL_MS }),
      row('board call latency during a daemon flood: p99', percentile(boardMs, 99), 'ms', { goal: `< ${BOARD_GOAL_MS} ms`, pass: percentile(boardMs, 99) < BOARD_GOAL_MS }),
      row('daemon RSS growth during a flood (max over runs)', growth, 'MB', { goal: `≤ ${RSS_GROWTH_GOAL_MB} MB`, pass: growth <= RSS_GROWTH_GOAL_MB }),
    );
    await daemon.stop();
    daemon = null;
    client.close();
    process.kill(client.hostPid, 'SIGTERM');
    client = null;
    // A fresh host, so the floods' garbage is not in its base.
    const fresh = await PtyHostClient.connect(path.join(dir, 'state-rss'), { hostArgs: ['--idle', '2s'] });
    let hostRss;
    try {
      hostRss = await hostRssPerJob(fresh, opts.smoke ? 4 : 40);
    } finally {
      fresh.close();
      process.kill(fresh.hostPid, 'SIGTERM');
    }
    rows.push(
      row(`PTY host RSS per job, ${hostRss.jobs} jobs with full 512 KiB buffers`, hostRss.perJobMB, 'MB', {
        goal: `≤ ${HOST_RSS_PER_JOB_GOAL_MB} MB`,
        pass: hostRss.perJobMB <= HOST_RSS_PER_JOB_GOAL_MB,
      }),
    );
    const secs = (xs: Timed[]) => xs.map((x) => +(x.ms / 1000).toFixed(3));
    return {
      case: 'flood',
      rows,
      details: {
        fileMB,
        randomMB,
        runs,
        seconds: { bare: secs(r.bare), host: secs(r.host), recorded: secs(r.recorded), run: secs(r.run), runTrue: secs(r.runTrue), daemon: secs(r.daemon), tmux: secs(r.tmux) },
        bytes: { bare: r.bare.map((x) => x.bytes), host: r.host.map((x) => x.bytes), recorded: r.recorded.map((x) => x.bytes) },
        bareCpu: r.bare.map((x) => x.cpu),
        cpuTotals: Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, (xs as Timed[]).map((x) => x.total ?? null)])),
        cpuPer100MB: Object.fromEntries(
          Object.entries(r).map(([k, xs]) => [k, (xs as Timed[]).map((x) => (x.total ? { user: (x.total.user * 100) / fileMB, sys: (x.total.sys * 100) / fileMB } : null))]),
        ),
        daemon: r.daemon.map(({ boardMs: b, ...rest }) => ({ ...rest, boardCalls: b.length, boardMaxMs: max(b), boardP99Ms: percentile(b, 99), boardMedianMs: median(b) })),
        hostRss,
        tmux: tmux !== null,
        mbps: { bare: bareMBps, tmux: tmuxMBps, tmuxVsBare: tmuxMBps === null ? null : tmuxMBps / bareMBps },
      },
    };
  } finally {
    await daemon?.stop();
    if (client) {
      client.close();
      try {
        process.kill(client.hostPid, 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
    await tmux?.kill();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
