/**
 * Drill replay throughput: MB/s of real terminal output through Screen +
 * Watchdog + responder (`replayCast`), next to a bare @xterm/headless parse
 * of the same chunks in the same run (the anchor). The output is recorded in
 * a real PTY at the start: `ls -laR` of /usr, a python progress bar that
 * redraws one line, both with the shipped scenarios spliced between bursts
 * and long quiet gaps, and a ≥ 50 MB listing of /usr, /etc, /opt and /var
 * over and over. Median of 3 after a warm-up (smoke: ~1 MB each, 1 run).
 * And nightshift's own recording, drilled by the CLI as a whole process
 * (replay-recorded.ts).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import xterm from '@xterm/headless';
import { DEFAULT_WATCHDOG } from '../../src/core/watchdog-types.js';
import { replayCast } from '../../src/drill/replay.js';
import { PtyHost } from '../../src/pty/host.js';
import type { Cast, CastEvent } from '../../src/record/asciicast.js';
import { readCast } from '../../src/record/cast-reader.js';
import { loadRules, type RuleSet } from '../../src/rules/load.js';
import { cleanEnv } from '../lib/proc.js';
import { measureRecordedDrill } from './replay-recorded.js';
import { MB, median } from '../lib/stats.js';
import { logger, row, type CaseOptions, type CaseResult, type Row } from '../lib/types.js';

const COLS = 120;
const ROWS = 40;
const STEP_S = 0.01;
const RATIO_GOAL = 0.9;
/** Quiet gaps: a look at the screen every 100 ms of a spinner, each a screen read and a rule pass the bare parse does not make. */
const QUIET_GAPS_GOAL = 0.8;
/** A `nightshift run` recording of about 55 MB (smoke: 2 MB). */
const RECORDED_BYTES = 55 * MB;
const RECORDED_SMOKE_BYTES = 2 * MB;

interface Measured {
  case: string;
  mb: number;
  events: number;
  virtualHours: number;
  /** Watchdog actions in the replay: shows the deadlines really fired. */
  actions: number;
  rawSeconds: number[];
  replaySeconds: number[];
  rawMBps: number;
  replayMBps: number;
  ratio: number;
  replayEventsPerS: number;
}

/** Runs a program in a real PTY and keeps its output chunks as node-pty delivered them, up to `cap` bytes. */
async function record(command: string, args: string[], cap: number): Promise<string[]> {
  const host = PtyHost.spawn({ command, args, cwd: process.cwd(), env: cleanEnv({ TERM: 'xterm-256color' }), cols: COLS, rows: ROWS });
  const chunks: string[] = [];
  let bytes = 0;
  host.onData((data) => {
    if (bytes >= cap) return;
    chunks.push(data);
    bytes += Buffer.byteLength(data);
    if (bytes >= cap) host.kill('SIGKILL');
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

/** Listings of real folders, again and again until the cap: a long realistic recording whatever the machine's /usr holds. */
const BIG_LISTING = 'while :; do ls -laR --color=always /usr /etc /opt /var 2>/dev/null; done';

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

/** The anchor: the same output chunks written into a bare headless terminal. */
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

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

async function measure(name: string, cast: Cast, rules: RuleSet, runs: number, log: (l: string) => void): Promise<Measured> {
  const mb = cast.events.reduce((n, ev) => n + (ev.code === 'o' ? Buffer.byteLength(ev.data) : 0), 0) / MB;
  let actions = 0;
  const replay = async () => {
    actions = (await replayCast(cast, rules, DEFAULT_WATCHDOG)).actions.length;
  };
  // One warm-up of each, then the runs alternate so drift hits both alike.
  if (runs > 1) {
    await rawParse(cast);
    await replay();
  }
  const rawSeconds: number[] = [];
  const replaySeconds: number[] = [];
  for (let i = 0; i < runs; i++) {
    rawSeconds.push(await timed(() => rawParse(cast)));
    replaySeconds.push(await timed(replay));
  }
  const raw = median(rawSeconds);
  const rep = median(replaySeconds);
  log(`  ${name}: ${mb.toFixed(1)} MB, raw parse ${raw.toFixed(2)} s, drill replay ${rep.toFixed(2)} s`);
  const events = cast.events.length;
  return {
    case: name,
    mb,
    events,
    virtualHours: (cast.events.at(-1)?.t ?? 0) / 3600,
    actions,
    rawSeconds,
    replaySeconds,
    rawMBps: mb / raw,
    replayMBps: mb / rep,
    ratio: raw / rep,
    replayEventsPerS: events / rep,
  };
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const runs = opts.smoke ? 1 : 3;
  const cap = opts.smoke ? 1 * MB : 20 * MB;
  const bigCap = opts.smoke ? 1 * MB : 60 * MB;
  const rules = await loadRules(path.join(opts.root, 'rules'));
  const scenarioDir = path.join(opts.root, 'scenarios');
  const scenarios = await Promise.all(
    readdirSync(scenarioDir).filter((f) => f.endsWith('.cast')).sort().map((f) => readCast(path.join(scenarioDir, f))),
  );
  log('replay: recording real PTY output...');
  const ls = await record('ls', ['-laR', '--color=always', '/usr'], cap);
  const progress = await record('python3', ['-c', PROGRESS_PY], cap);
  const cases: Array<[string, () => Promise<Cast>]> = [
    ['ls -laR', async () => steadyCast('ls', ls)],
    ['python progress', async () => steadyCast('progress', progress)],
    ['quiet-gaps', async () => quietGapCast([...ls, ...progress], scenarios)],
    ['big listing', async () => steadyCast('big-listing', await record('sh', ['-c', BIG_LISTING], bigCap))],
  ];
  log(`replay: measuring (median of ${runs}${runs > 1 ? ' after 1 warm-up' : ''})...`);
  const results: Measured[] = [];
  // One cast at a time in memory: the big one is built only when its turn comes.
  for (const [name, make] of cases) results.push(await measure(name, await make(), rules, runs, log));
  log('replay: recording with nightshift run, then timing nightshift drill of it...');
  const recorded = await measureRecordedDrill(opts.root, opts.smoke ? RECORDED_SMOKE_BYTES : RECORDED_BYTES, runs, rawParse);
  log(
    `  nightshift run recording: ${recorded.mb.toFixed(1)} MB, ${recorded.markers} markers, raw parse ${median(recorded.rawSeconds).toFixed(2)} s, ` +
      `drill ${median(recorded.drillSeconds).toFixed(2)} s less start-up ${median(recorded.startupSeconds).toFixed(2)} s`,
  );
  // The kernel's high-water mark (getrusage maxrss), not a timer's samples: a drill parses in the
  // caller's task and gives no timer a turn until it is done. The process's: the casts held count.
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const rows: Row[] = results.map((r) => {
    const goal = r.case === 'quiet-gaps' ? QUIET_GAPS_GOAL : RATIO_GOAL;
    return row(`drill replay: ${r.case}`, r.replayMBps, 'MB/s', { anchor: r.rawMBps, anchorName: 'bare xterm parse', goal: `ratio ≥ ${goal}`, pass: r.ratio >= goal });
  });
  rows.push(
    row('nightshift drill of a nightshift run recording (process less start-up)', recorded.drillMBps, 'MB/s', {
      anchor: recorded.rawMBps,
      anchorName: 'bare xterm parse',
      goal: `ratio ≥ ${RATIO_GOAL}`,
      pass: recorded.ratio >= RATIO_GOAL,
    }),
  );
  rows.push(row('drill replay: process peak RSS (maxrss)', peakRss / MB, 'MB', { goal: '', pass: null }));
  return { case: 'replay', rows, details: { runs, terminal: `${COLS}x${ROWS}`, peakRssMB: peakRss / MB, results, recorded } };
}
