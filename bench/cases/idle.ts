/**
 * Idle cost of 100 daemon jobs (smoke: 6): half blocked at a `[y/N]`
 * question, half sleeping. Once all are live and settled, the CPU of the
 * daemon and its PTY host over 30 s (smoke: 5 s), from /proc, and their RSS
 * per job above an empty daemon's.
 * Anchor, over as many seconds right after (not at the same time: the
 * poller's load would slow the daemon): the same commands in as many
 * sessions of a private tmux server, and a poller that spawns `tmux
 * capture-pane -p -t X` once a second for each, as tmux-based supervisors
 * do: the CPU of the poller, its children (cutime/cstime) and the tmux server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Daemon } from '../lib/daemon.js';
import { cpuSeconds, cpuSecondsWithChildren, rssMB } from '../lib/proc.js';
import { sleep } from '../lib/stats.js';
import { haveTmux, Tmux } from '../lib/tmux.js';
import { logger, row, type CaseOptions, type CaseResult } from '../lib/types.js';

const CPU_GOAL_PCT = 0.5;
const RSS_GOAL_MB = 2;
const PROMPT = 'read -p "Continue with the upgrade? [y/N] " a';

const command = (i: number): string[] => (i % 2 ? ['sleep', '3600'] : ['bash', '-c', PROMPT]);
const shell = (i: number): string => (i % 2 ? 'sleep 3600' : `bash -c '${PROMPT}'`);

/** A bash loop that captures every pane once a second (each capture a tmux client process). */
function poller(tmux: Tmux, n: number): ChildProcess {
  const capture = tmux.argv('capture-pane', '-p', '-t', 'idle-$i').join(' ');
  const script = `while :; do for ((i=0;i<${n};i++)); do ${capture} >/dev/null; done; sleep 1; done`;
  return spawn('bash', ['-c', script], { stdio: 'ignore' });
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const n = opts.smoke ? 6 : 100;
  const seconds = opts.smoke ? 5 : 30;
  // Idle is the steady state: a quiet job's /proc reads back off to one in 30 s, its file polls too, and V8's
  // memory reducer has collected the start-up's garbage (its full collections come 55-75 s after the start).
  const settleMs = opts.smoke ? 2_000 : 120_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-idle-'));
  const tmux = haveTmux() ? new Tmux() : null;
  let daemon: Daemon | null = null;
  let poll: ChildProcess | null = null;
  try {
    daemon = await Daemon.start(opts.root, path.join(dir, 'state'), ['--max-running', String(n)]);
    await sleep(1_000);
    const emptyDaemonMB = rssMB(daemon.pid);
    const emptyHost = daemon.hostPid();
    const emptyHostMB = emptyHost === null ? 0 : rssMB(emptyHost);
    log(`idle: ${n} jobs (half at a [y/N] question, half sleeping), ${seconds} s; empty daemon ${emptyDaemonMB.toFixed(0)} MB${emptyHost === null ? ' (no host yet)' : `, host ${emptyHostMB.toFixed(0)} MB`}`);
    for (let i = 0; i < n; i++) await daemon.submit(`idle-${i}`, command(i), tmpdir());
    let tmuxOneMB = 0;
    if (tmux) {
      await tmux.newSession('idle-0', shell(0));
      tmuxOneMB = rssMB(await tmux.serverPid());
      for (let i = 1; i < n; i++) await tmux.newSession(`idle-${i}`, shell(i));
    }
    await daemon.waitBoard(
      (jobs) => jobs.filter((j) => j.state === 'blocked').length >= n / 2 && jobs.filter((j) => j.state === 'blocked' || j.state === 'running').length === n,
      120_000,
      `${n / 2} jobs blocked and the rest running`,
      500,
    );
    // Let the start-up settle (first samples, first screens) before measuring.
    await sleep(settleMs);
    const host = daemon.hostPid();
    const tmuxPid = tmux ? await tmux.serverPid() : null;
    const pids = [daemon.pid, ...(host ? [host] : [])];
    // One window after the other, on an otherwise quiet machine: the poller's load slowed the daemon's
    // beat enough to wake its event-loop watch (wall-time utilisation), which is not what idle costs.
    const before = pids.map(cpuSeconds);
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const used = pids.map((p, i) => cpuSeconds(p) - before[i]!);
    const wall = (performance.now() - t0) / 1000;
    let anchorUsed: number[] | null = null;
    let anchorWall = wall;
    if (tmux && tmuxPid !== null) {
      poll = poller(tmux, n);
      await sleep(5_000);
      const anchorBefore = [cpuSeconds(tmuxPid), cpuSecondsWithChildren(poll.pid!)];
      const a0 = performance.now();
      await sleep(seconds * 1000);
      anchorUsed = [cpuSeconds(tmuxPid) - anchorBefore[0]!, cpuSecondsWithChildren(poll.pid!) - anchorBefore[1]!];
      anchorWall = (performance.now() - a0) / 1000;
    }
    const pct = (s: number) => (100 * s) / wall;
    const anchorPct = (s: number) => (100 * s) / anchorWall;
    const daemonMB = rssMB(daemon.pid);
    const hostMB = host ? rssMB(host) : 0;
    const perJobMB = (daemonMB + hostMB - emptyDaemonMB - emptyHostMB) / n;
    const tmuxMB = tmuxPid !== null ? rssMB(tmuxPid) : null;
    const tmuxPerPaneMB = tmuxMB !== null ? (tmuxMB - tmuxOneMB) / Math.max(1, n - 1) : null;
    const total = pct(used.reduce((a, b) => a + b, 0));
    const anchorTotal = anchorUsed ? anchorPct(anchorUsed[0]! + anchorUsed[1]!) : null;
    log(`  nightshift ${total.toFixed(2)} % of a core (daemon ${pct(used[0]!).toFixed(2)} %, host ${pct(used[1] ?? 0).toFixed(2)} %)` + (anchorTotal === null ? '' : `; tmux + poller ${anchorTotal.toFixed(2)} %`));
    const rows = [
      row(`idle CPU, ${n} jobs (daemon + PTY host)`, total, '% of a core', {
        anchor: anchorTotal,
        anchorName: 'tmux + capture-pane poller, 1/s',
        goal: `< ${CPU_GOAL_PCT} %`,
        pass: total < CPU_GOAL_PCT,
      }),
      row(`RSS per idle job (daemon + host − empty daemon${emptyHost === null ? '' : ' and host'}) / ${n}`, perJobMB, 'MB', {
        anchor: tmuxPerPaneMB,
        anchorName: 'tmux server, per pane',
        goal: `< ${RSS_GOAL_MB} MB`,
        pass: perJobMB < RSS_GOAL_MB,
      }),
    ];
    return {
      case: 'idle',
      rows,
      details: {
        jobs: n,
        seconds: wall,
        cpuPct: { daemon: pct(used[0]!), host: host ? pct(used[1]!) : null, total },
        rssMB: { emptyDaemon: emptyDaemonMB, emptyHost: emptyHost === null ? null : emptyHostMB, daemon: daemonMB, host: host ? hostMB : null },
        anchor: anchorUsed
          ? { cpuPct: { tmuxServer: anchorPct(anchorUsed[0]!), poller: anchorPct(anchorUsed[1]!), total: anchorTotal }, rssMB: { tmuxOneSession: tmuxOneMB, tmuxAll: tmuxMB } }
          : null,
      },
    };
  } finally {
    poll?.kill('SIGKILL');
    await daemon?.stop();
    await tmux?.kill();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
