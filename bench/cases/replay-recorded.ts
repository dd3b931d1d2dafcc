/**
 * The replay case's rows for nightshift's own recordings: a `nightshift run`
 * of a colour listing (markers and all, as a user's drill replays them),
 * drilled by `nightshift drill` as a whole process, its start-up taken off
 * (`nightshift --version`, timed alike), against a bare @xterm/headless parse
 * of the same output events in this process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readCast } from '../../src/record/cast-reader.js';
import type { Cast } from '../../src/record/asciicast.js';
import { cleanEnv } from '../lib/proc.js';
import { MB, median } from '../lib/stats.js';

const run = promisify(execFile);

export interface RecordedDrill {
  mb: number;
  events: number;
  markers: number;
  rawSeconds: number[];
  /** Each drill's wall time, start-up included. */
  drillSeconds: number[];
  startupSeconds: number[];
  /** What a drill costs beyond start-up: the median drill less the median start-up. */
  drillNetSeconds: number;
  rawMBps: number;
  drillMBps: number;
  ratio: number;
  verdict: unknown;
}

/**
 * Listings of /usr/share and /usr/lib in colour, again and again, up to `bytes`: a real terminal
 * flood of known size. The loop ends when head has closed the pipe (ls killed by SIGPIPE).
 */
const listing = (bytes: number) =>
  `while :; do ls -laR --color=always /usr/share /usr/lib 2>/dev/null || [ $? -lt 128 ] || exit 0; done | head -c ${bytes}`;

/** Records `bytes` of listing with the built `nightshift run`; the recording's path. */
async function recordWithRun(root: string, state: string, bytes: number): Promise<string> {
  const bin = path.join(root, 'bin', 'nightshift.js');
  const env = cleanEnv({ TERM: 'xterm-256color' });
  await run(process.execPath, [bin, 'run', '--state', state, '--name', 'replay', '--cols', '120', '--rows', '40', '--', 'sh', '-c', listing(bytes)], {
    env,
    maxBuffer: 1 << 30,
  });
  const jobs = path.join(state, 'jobs');
  const [job] = readdirSync(jobs);
  return path.join(jobs, job!, 'recording.cast');
}

async function wall(argv: string[]): Promise<{ seconds: number; stdout: string }> {
  const start = performance.now();
  const { stdout } = await run(process.execPath, argv, { env: cleanEnv(), maxBuffer: 1 << 26 }).catch((e: { stdout?: string; code?: number }) => {
    // A drill of a recording without expectations may still say FAIL (exit 1): the time counts, not the verdict.
    if (e.code === 1 && e.stdout !== undefined) return { stdout: e.stdout };
    throw e;
  });
  return { seconds: (performance.now() - start) / 1000, stdout };
}

/**
 * Records, then alternates the bare parse, `nightshift --version` and the
 * drill `runs` times after one warm-up of each (none in a smoke run).
 */
export async function measureRecordedDrill(
  root: string,
  bytes: number,
  runs: number,
  rawParse: (cast: Cast) => Promise<void>,
): Promise<RecordedDrill> {
  const state = mkdtempSync(path.join(tmpdir(), 'nightshift-bench-replay-'));
  try {
    const file = await recordWithRun(root, state, bytes);
    const bin = path.join(root, 'bin', 'nightshift.js');
    const drill = () => wall([bin, 'drill', '--json', file]);
    const startup = () => wall([bin, '--version']);
    const cast = await readCast(file);
    const mb = cast.events.reduce((n, ev) => n + (ev.code === 'o' ? Buffer.byteLength(ev.data) : 0), 0) / MB;
    const events = cast.events.length;
    const markers = cast.events.filter((ev) => ev.code === 'm').length;
    const timedRaw = async (c: Cast) => {
      const start = performance.now();
      await rawParse(c);
      return (performance.now() - start) / 1000;
    };
    if (runs > 1) {
      await timedRaw(cast);
      await startup();
      await drill();
    }
    const rawSeconds: number[] = [];
    const drillSeconds: number[] = [];
    const startupSeconds: number[] = [];
    let verdict: unknown;
    for (let i = 0; i < runs; i++) {
      rawSeconds.push(await timedRaw(cast));
      startupSeconds.push((await startup()).seconds);
      const d = await drill();
      drillSeconds.push(d.seconds);
      verdict = (JSON.parse(d.stdout) as { scenarios: Array<{ passed: unknown; transitions?: unknown }> }).scenarios[0];
    }
    const raw = median(rawSeconds);
    const net = median(drillSeconds) - median(startupSeconds);
    return { mb, events, markers, rawSeconds, drillSeconds, startupSeconds, drillNetSeconds: net, rawMBps: mb / raw, drillMBps: mb / net, ratio: raw / net, verdict };
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}
