/**
 * 100 concurrent daemon jobs of mixed behaviour for 5 minutes (smoke: 10
 * jobs, at most 40 s): line prompts (`[y/N]`), short floods (a few MB),
 * hangs (`sleep`; the daemon runs with `--tool-gap 8s --screen-quiet 3s`,
 * so they are declared hung within the run), quick exits (0 and 3), and
 * agents (test/helpers/fake-claude-turns.mjs, a Claude-format transcript
 * turn after turn). The submissions are spread over the first 40 % of the
 * run. Measured: the daemon's event-loop delay (`status`, reset once the
 * daemon is up), every job's state against what its behaviour should give,
 * and the pages a local HTTP receiver got (webhook notifier): none missed,
 * none duplicated. No anchor: these are nightshift's own goals.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Daemon, type BoardJob } from '../lib/daemon.js';
import { cpuSeconds, rssMB } from '../lib/proc.js';
import { repoRoot } from '../lib/results.js';
import { sleep } from '../lib/stats.js';
import { logger, row, type CaseOptions, type CaseResult } from '../lib/types.js';

const P99_GOAL_MS = 20;
const MAX_GOAL_MS = 100;
const TOOL_GAP = '8s';

type Kind = 'prompt' | 'flood' | 'hang' | 'exit0' | 'exit3' | 'agent';
/** One cycle of kinds; jobs take them in turn, so every kind is spread over the run. */
const CYCLE: Kind[] = ['prompt', 'flood', 'hang', 'agent', 'exit0', 'prompt', 'flood', 'hang', 'agent', 'exit3'];

interface Expect {
  state: string;
  reasons: string[];
  exit: number | null;
  /** The page kinds this job must get, once each. */
  pages: string[];
}

const EXPECT: Record<Kind, Expect> = {
  prompt: { state: 'blocked', reasons: ['prompt'], exit: null, pages: ['prompt'] },
  flood: { state: 'done', reasons: ['exit'], exit: 0, pages: [] },
  hang: { state: 'blocked', reasons: ['hung'], exit: null, pages: ['hung'] },
  exit0: { state: 'done', reasons: ['exit'], exit: 0, pages: [] },
  exit3: { state: 'done', reasons: ['exit'], exit: 3, pages: ['failed'] },
  agent: { state: 'done', reasons: ['exit', 'turn-ended'], exit: 0, pages: [] },
};

interface Job {
  name: string;
  kind: Kind;
}

/** A local page receiver: webhook bodies are the page JSON (name, kind, …). */
async function receiver(): Promise<{ server: Server; url: string; pages: Array<{ name: string; kind: string; round: string | undefined; at: number }> }> {
  const pages: Array<{ name: string; kind: string; round: string | undefined; at: number }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      try {
        const p = JSON.parse(body) as { name: string; kind: string };
        pages.push({ name: p.name, kind: p.kind, round: req.headers['x-nightshift-round'] as string | undefined, at: Date.now() });
      } catch {
        pages.push({ name: '?', kind: 'unparsable', round: undefined, at: Date.now() });
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, pages };
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const n = opts.smoke ? 10 : 100;
  const durationMs = opts.smoke ? 40_000 : 300_000;
  const submitOverMs = opts.smoke ? 5_000 : 0.4 * durationMs;
  const floodBytes = opts.smoke ? 1_000_000 : 3_000_000;
  const agentPauseMs = opts.smoke ? 1_500 : 3_000;
  const agentTurns = opts.smoke ? 4 : Math.ceil((0.4 * durationMs) / agentPauseMs);
  // This checkout's fake agent, whichever checkout's daemon runs (--root).
  const fake = path.join(repoRoot(), 'test', 'helpers', 'fake-claude-turns.mjs');
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-scale-'));
  const claudeConfig = path.join(dir, 'claude');
  mkdirSync(claudeConfig);
  const rx = await receiver();
  let daemon: Daemon | null = null;
  try {
    const config = `notify:\n  repage_after: off\n  notifiers:\n    - { kind: webhook, url: "${rx.url}" }\n`;
    daemon = await Daemon.start(opts.root, path.join(dir, 'state'), ['--max-running', String(n), '--tool-gap', TOOL_GAP, '--screen-quiet', '3s'], config);
    const d = daemon;
    await d.loopDelay(true);
    const cpu0 = cpuSeconds(d.pid);
    const t0 = Date.now();
    const jobs: Job[] = Array.from({ length: n }, (_, i) => ({ name: `${CYCLE[i % CYCLE.length]}-${i}`, kind: CYCLE[i % CYCLE.length]! }));
    log(`scale: ${n} jobs (${Object.keys(EXPECT).join(', ')}) submitted over ${(submitOverMs / 1000).toFixed(0)} s, run ${durationMs / 1000} s at most`);
    let peakRss = rssMB(d.pid);
    let peakHostRss = 0;
    const sample = () => {
      peakRss = Math.max(peakRss, rssMB(d.pid));
      const h = d.hostPid();
      if (h !== null) peakHostRss = Math.max(peakHostRss, rssMB(h));
    };
    for (let i = 0; i < n; i++) {
      const j = jobs[i]!;
      const cwd = path.join(dir, 'work', j.name);
      mkdirSync(cwd, { recursive: true });
      await sleep(Math.max(0, t0 + (i * submitOverMs) / n - Date.now()));
      switch (j.kind) {
        case 'prompt':
          await d.submit(j.name, ['bash', '-c', 'echo "migrating 12 tables"; read -p "Drop the old tables now? [y/N] " a'], cwd);
          break;
        case 'flood':
          await d.submit(j.name, ['sh', '-c', `head -c ${floodBytes} /dev/urandom | base64; sleep 0.5`], cwd);
          break;
        case 'hang':
          await d.submit(j.name, ['bash', '-c', 'echo "waiting for the lock"; sleep 3600'], cwd);
          break;
        case 'exit0':
          await d.submit(j.name, ['sh', '-c', 'echo done; exit 0'], cwd);
          break;
        case 'exit3':
          await d.submit(j.name, ['sh', '-c', 'echo "error: 3 tests failed" >&2; exit 3'], cwd);
          break;
        case 'agent':
          await d.submit(j.name, [process.execPath, fake, '--session-id', randomUUID(), '--turns', String(agentTurns), '--pause', String(agentPauseMs), `task ${i}`], cwd, {
            NIGHTSHIFT_AGENT: 'claude',
            CLAUDE_CONFIG_DIR: claudeConfig,
          });
          break;
      }
      if (i % 10 === 0) sample();
    }
    const byName = new Map(jobs.map((j) => [j.name, j]));
    const matches = (b: BoardJob): boolean => {
      const e = EXPECT[byName.get(b.name)!.kind];
      return b.state === e.state && e.reasons.includes(b.reason.code) && (e.exit === null || b.exit?.code === e.exit);
    };
    const pagesOf = (name: string) => rx.pages.filter((p) => p.name === name).map((p) => p.kind);
    const pagesOk = (name: string) => {
      const want = EXPECT[byName.get(name)!.kind].pages;
      const got = pagesOf(name);
      return want.every((k) => got.includes(k));
    };
    // Until every job is where its behaviour leads and every expected page came, and (full run) the whole duration.
    let board: BoardJob[] = [];
    let settledAt: number | null = null;
    for (;;) {
      board = await d.board();
      sample();
      const settled = board.length === n && board.every(matches) && jobs.every((j) => pagesOk(j.name));
      if (settled && settledAt === null) settledAt = Date.now();
      const elapsed = Date.now() - t0;
      // A few seconds past settling, so a duplicate page would be seen.
      if (settledAt !== null && Date.now() - settledAt > 3_000 && (opts.smoke || elapsed >= durationMs)) break;
      if (elapsed > durationMs + (opts.smoke ? 0 : 60_000)) break;
      await sleep(1_000);
    }
    const loop = await d.loopDelay();
    const elapsedS = (Date.now() - t0) / 1000;
    const daemonCpuS = cpuSeconds(d.pid) - cpu0;
    const wrong = board.filter((b) => !matches(b)).map((b) => ({ name: b.name, got: `${b.state}/${b.reason.code}`, exit: b.exit?.code ?? null }));
    const missingJobs = jobs.filter((j) => !board.some((b) => b.name === j.name)).map((j) => j.name);
    let missed = 0;
    let duplicated = 0;
    let unexpected = 0;
    const pageProblems: Array<{ name: string; want: string[]; got: string[] }> = [];
    for (const j of jobs) {
      const want = EXPECT[j.kind].pages;
      const got = pagesOf(j.name);
      const m = want.filter((k) => !got.includes(k)).length;
      const dup = want.reduce((s, k) => s + Math.max(0, got.filter((g) => g === k).length - 1), 0);
      const extra = got.filter((g) => !want.includes(g)).length;
      missed += m;
      duplicated += dup;
      unexpected += extra;
      if (m || dup || extra) pageProblems.push({ name: j.name, want, got });
    }
    const ok = n - wrong.length - missingJobs.length;
    log(`  ${ok}/${n} jobs as expected, pages: ${rx.pages.length} (missed ${missed}, duplicated ${duplicated}, unexpected ${unexpected}); loop delay p99 ${loop.p99_ms} ms, max ${loop.max_ms} ms over ${elapsedS.toFixed(0)} s`);
    const rows = [
      row(`daemon event-loop delay p99, ${n} mixed jobs`, loop.p99_ms, 'ms', { goal: `< ${P99_GOAL_MS} ms`, pass: loop.p99_ms < P99_GOAL_MS }),
      row(`daemon event-loop delay max, ${n} mixed jobs`, loop.max_ms, 'ms', { goal: `< ${MAX_GOAL_MS} ms`, pass: loop.max_ms < MAX_GOAL_MS }),
      row('jobs in the state their behaviour should give', ok, 'jobs', { goal: `all ${n}`, pass: ok === n }),
      row('pages missed', missed, 'pages', { goal: '0', pass: missed === 0 }),
      row('pages duplicated', duplicated, 'pages', { goal: '0', pass: duplicated === 0 }),
      row('pages not expected (another kind, or a job that should not page)', unexpected, 'pages', { goal: '0', pass: unexpected === 0 }),
      row('daemon peak RSS under the mixed load', peakRss, 'MB'),
    ];
    return {
      case: 'scale',
      rows,
      details: {
        jobs: n,
        seconds: elapsedS,
        settledAfterS: settledAt === null ? null : (settledAt - t0) / 1000,
        loop,
        daemonCpuS,
        daemonCpuPct: (100 * daemonCpuS) / elapsedS,
        peakRssMB: { daemon: peakRss, host: peakHostRss },
        kinds: Object.fromEntries(Object.keys(EXPECT).map((k) => [k, jobs.filter((j) => j.kind === k).length])),
        wrong,
        missingJobs,
        pages: rx.pages.length,
        pageProblems,
        flags: { toolGap: TOOL_GAP, screenQuiet: '3s', floodBytes, agentTurns, agentPauseMs, submitOverMs },
      },
    };
  } finally {
    await daemon?.stop();
    rx.server.closeAllConnections();
    await new Promise((r) => rx.server.close(r));
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
