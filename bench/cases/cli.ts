/**
 * What a person waits for a read-only verb: the wall time of `nightshift
 * board`, `nightshift status` and `nightshift show` (of the running job)
 * against a running daemon (a running and a queued job on its board), side
 * by side with a bare `node -e 0` run just before each, so the ratio is what
 * nightshift adds to starting Node. Goal: a ratio ≤ 1.5. 20 trials each
 * (smoke: 3); the median.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Daemon } from '../lib/daemon.js';
import { cleanEnv } from '../lib/proc.js';
import { median } from '../lib/stats.js';
import { logger, row, type CaseOptions, type CaseResult } from '../lib/types.js';

const RATIO_GOAL = 1.5;
/** Each verb's arguments after `--state DIR`. */
const VERBS = { board: [], status: [], show: ['holder'] } as const satisfies Record<string, readonly string[]>;
type Verb = keyof typeof VERBS;
const NAMES = Object.keys(VERBS) as Verb[];

/** Wall time of one process to its exit, ms; a non-zero exit is an error (the verb failed, nothing was measured). */
function timed(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, argv, { stdio: 'ignore', env: cleanEnv() });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const trials = opts.smoke ? 3 : 20;
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-cli-'));
  const bin = path.join(opts.root, 'bin', 'nightshift.js');
  let daemon: Daemon | null = null;
  try {
    const state = path.join(dir, 'state');
    // One slot, held by a job that sleeps: the second stays queued, so the board has rows and nothing starts meanwhile.
    daemon = await Daemon.start(opts.root, state, ['--max-running', '1']);
    await daemon.submit('holder', ['sleep', '3600'], tmpdir());
    await daemon.waitBoard((jobs) => jobs.some((j) => j.state === 'running'), 20_000, 'the holder job to run');
    await daemon.submit('waiting', ['true'], tmpdir());
    const node: number[] = [];
    const verbs: Record<Verb, number[]> = { board: [], status: [], show: [] };
    const argv = (v: Verb) => [bin, v, '--state', state, ...VERBS[v]];
    // A first run of each warms the disk cache; it is not counted.
    await timed(['-e', '0']);
    for (const v of NAMES) await timed(argv(v));
    for (let i = 0; i < trials; i++) {
      for (const v of NAMES) {
        node.push(await timed(['-e', '0']));
        verbs[v].push(await timed(argv(v)));
      }
    }
    const anchor = median(node);
    log(`cli: node -e 0 ${anchor.toFixed(0)} ms; ${NAMES.map((v) => `${v} ${median(verbs[v]).toFixed(0)} ms`).join(', ')} (${trials} trials)`);
    const rows = NAMES.map((v) => {
      const ms = median(verbs[v]);
      return row(`\`nightshift ${v}\` wall time (median)`, ms, 'ms', { anchor, anchorName: 'node -e 0', goal: `ratio ≤ ${RATIO_GOAL}`, pass: ms / anchor <= RATIO_GOAL });
    });
    return { case: 'cli', rows, details: { trials, node, ...verbs } };
  } finally {
    await daemon?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
