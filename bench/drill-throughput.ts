/**
 * Drill replay throughput: MB/s of real terminal output through Screen +
 * Watchdog (replayCast), next to a bare @xterm/headless parse of the same
 * chunks in the same run. Usage: npm run bench
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import xterm from '@xterm/headless';
import { DEFAULT_WATCHDOG } from '../src/core/watchdog-types.js';
import { replayCast } from '../src/drill/replay.js';
import { PtyHost } from '../src/pty/host.js';
import type { Cast, CastEvent } from '../src/record/asciicast.js';
import { readCast } from '../src/record/cast-reader.js';
import { loadRules, type RuleSet } from '../src/rules/load.js';

const COLS = 120;
const ROWS = 40;
const CAP_BYTES = 20e6;
const STEP_S = 0.01;
const RUNS = 3;
const MB = 1e6;

interface Result {
  case: string;
  mb: number;
  events: number;
  virtualHours: number;
  /** Watchdog actions in the replay: shows the deadlines really fired. */
  actions: number;
  rawMBps: number;
  replayMBps: number;
  ratio: number;
  replayEventsPerS: number;
}

function repoRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'nightshift') return dir;
    if (path.dirname(dir) === dir) throw new Error('cannot find the nightshift package.json above this file');
  }
}

/** Runs a program in a real PTY and keeps its output chunks as node-pty delivered them. */
async function record(command: string, args: string[]): Promise<string[]> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const host = PtyHost.spawn({ command, args, cwd: process.cwd(), env: { ...env, TERM: 'xterm-256color' }, cols: COLS, rows: ROWS });
  const chunks: string[] = [];
  let bytes = 0;
  host.onData((data) => {
    if (bytes >= CAP_BYTES) return;
    chunks.push(data);
    bytes += Buffer.byteLength(data);
    if (bytes >= CAP_BYTES) host.kill('SIGKILL');
  });
  await host.exited;
  host.dispose();
  return chunks;
}

const PROGRESS_PY = `
import sys
n = 120000
for i in range(n):
    pct = i * 100 // n
    bar = '#' * (pct // 2) + '.' * (50 - pct // 2)
    sys.stdout.write(f'\\r\\x1b[1;3{1 + i % 6}m[{bar}]\\x1b[0m {pct:3d}% \\x1b[2mfetching item {i} of {n}\\x1b[0m\\x1b[K')
    if i % 4000 == 0:
        sys.stdout.write(f'\\r\\n\\x1b[32m✔\\x1b[0m batch {i // 4000} done\\r\\n')
sys.stdout.write('\\r\\ndone\\r\\n')
`;

function castOf(title: string, events: CastEvent[]): Cast {
  return { header: { version: 2, width: COLS, height: ROWS, title }, events };
}

/** Chunks 10 ms apart, bracketed by tool/proc markers as a supervised agent's recording would be. */
function steadyCast(title: string, chunks: string[]): Cast {
  const events: CastEvent[] = [{ t: 0, code: 'm', data: 'tool:Bash' }];
  chunks.forEach((c, i) => {
    const t = (i + 1) * STEP_S;
    if (i === Math.floor(chunks.length / 3)) events.push({ t, code: 'm', data: 'proc:busy' });
    if (i === Math.floor((2 * chunks.length) / 3)) events.push({ t, code: 'm', data: 'proc:idle' });
    events.push({ t, code: 'o', data: c });
  });
  const end = (chunks.length + 1) * STEP_S;
  events.push({ t: end, code: 'm', data: 'tool-done:Bash' }, { t: end + STEP_S, code: 'm', data: 'exit:0' });
  return castOf(title, events);
}

/**
 * Bursts of real output, each followed by one of the shipped scenarios (prompts,
 * spinners, proc markers) and a quiet gap alternating between "quiet screen"
 * (4 min) and "hung" (20 min), so the watchdog blocks and wakes over and over.
 */
function quietGapCast(chunks: string[], scenarios: Cast[]): Cast {
  const events: CastEvent[] = [];
  let t = 0;
  for (let i = 0, n = 0; i < chunks.length; n++) {
    // Cut only after a newline: a scenario spliced into an escape sequence would be garbage.
    for (let k = 0; i < chunks.length && (k < 100 || !chunks[i - 1]!.endsWith('\n')); k++, i++) {
      events.push({ t: (t += STEP_S), code: 'o', data: chunks[i]! });
    }
    const sc = scenarios[n % scenarios.length]!;
    const base = t;
    for (const ev of sc.events) {
      if (ev.code === 'x' || (ev.code === 'm' && ev.data.startsWith('exit:'))) continue;
      events.push({ ...ev, t: (t = base + ev.t) });
    }
    t += n % 2 === 0 ? 4 * 60 : 20 * 60;
  }
  events.push({ t: t + 1, code: 'm', data: 'exit:0' });
  return castOf('quiet-gaps', events);
}

async function rawParse(cast: Cast): Promise<void> {
  const term = new xterm.Terminal({ cols: cast.header.width, rows: cast.header.height, allowProposedApi: true });
  let pending = 0;
  let last: Promise<void> = Promise.resolve();
  for (const ev of cast.events) {
    if (ev.code !== 'o') continue;
    pending += ev.data.length;
    last = new Promise((resolve) => term.write(ev.data, resolve));
    // xterm throws away writes once 50M chars are queued unparsed.
    if (pending > 20e6) {
      await last;
      pending = 0;
    }
  }
  await last;
  term.dispose();
}

let peakRss = 0;
const sampleRss = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

async function medianSeconds(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    times.push((performance.now() - start) / 1000);
    sampleRss();
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

async function measure(name: string, cast: Cast, rules: RuleSet): Promise<Result> {
  const mb = cast.events.reduce((n, ev) => n + (ev.code === 'o' ? Buffer.byteLength(ev.data) : 0), 0) / MB;
  const raw = await medianSeconds(() => rawParse(cast));
  let actions = 0;
  const replay = await medianSeconds(async () => {
    actions = (await replayCast(cast, rules, DEFAULT_WATCHDOG)).actions.length;
  });
  process.stderr.write(`  ${name}: raw ${raw.toFixed(2)} s, replay ${replay.toFixed(2)} s\n`);
  const events = cast.events.length;
  const virtualHours = (cast.events.at(-1)?.t ?? 0) / 3600;
  return { case: name, mb, events, virtualHours, actions, rawMBps: mb / raw, replayMBps: mb / replay, ratio: raw / replay, replayEventsPerS: events / replay };
}

function table(results: Result[]): string {
  const head = ['case', 'MB', 'events', 'virtual h', 'actions', 'raw MB/s', 'replay MB/s', 'ratio', 'replay ev/s'];
  const rows = results.map((r) => [r.case, r.mb.toFixed(1), String(r.events), r.virtualHours.toFixed(1), String(r.actions), r.rawMBps.toFixed(1), r.replayMBps.toFixed(1), r.ratio.toFixed(2), r.replayEventsPerS.toFixed(0)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const root = repoRoot();
  const rules = await loadRules(path.join(root, 'rules'));
  const scenarioDir = path.join(root, 'scenarios');
  const scenarios = await Promise.all(
    readdirSync(scenarioDir).filter((f) => f.endsWith('.cast')).sort().map((f) => readCast(path.join(scenarioDir, f))),
  );
  const sampler = setInterval(sampleRss, 100);
  sampler.unref();

  process.stderr.write('recording real PTY output...\n');
  const ls = await record('ls', ['-laR', '--color=always', '/usr']);
  const progress = await record('python3', ['-c', PROGRESS_PY]);
  const cases: [string, Cast][] = [
    ['ls -laR', steadyCast('ls', ls)],
    ['python progress', steadyCast('progress', progress)],
    ['quiet-gaps', quietGapCast([...ls, ...progress], scenarios)],
  ];

  process.stderr.write(`measuring (median of ${RUNS} after 1 warm-up)...\n`);
  const results: Result[] = [];
  for (const [name, cast] of cases) results.push(await measure(name, cast, rules));
  clearInterval(sampler);
  sampleRss();

  const summary = { node: process.version, peakRssMB: peakRss / MB, runs: RUNS, terminal: `${COLS}x${ROWS}`, results };
  console.log(table(results));
  console.log(`peak RSS ${summary.peakRssMB.toFixed(0)} MB, node ${summary.node}`);
  writeFileSync(path.join(root, 'bench', 'results.json'), `${JSON.stringify(summary, null, 2)}\n`);
}

await main();
