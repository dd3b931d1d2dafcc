/**
 * Issue 8, point 9, against the real daemon: work that takes time (git
 * status in a big tree, a job's log) never holds its one thread. Twenty
 * agent-like jobs (a script writing Claude-format transcripts, turn after
 * turn, in twenty folders of one 10 000-file repository) make the daemon
 * take two snapshots per turn; its worst event-loop delay over the run,
 * from `status`, stays under LOOP_BOUND_MS, which the synchronous snapshot
 * of before broke (the README's daemon section has the numbers).
 * NS_LOOP_BOUND_MS overrides the bound, NS_LOOP_DIRS the repository's size
 * (folders of 50 files), to measure other set-ups.
 * Needs a build first (npx tsc -p tsconfig.json). Runs alone, after the
 * rest of the suite (vitest.config.ts, project `alone`): a neighbour's load
 * is the machine's delay, not the daemon's.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/board/types.js';
import { call } from '../../src/daemon/client.js';
import type { LoopDelayReport } from '../../src/daemon/loop-delay.js';
import { readCast } from '../../src/record/cast-reader.js';
import { rawSpec, sr, testScopes, waitUntil, type Scope } from '../helpers/daemon.js';

const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const FAKE = fileURLToPath(new URL('../helpers/fake-claude-turns.mjs', import.meta.url));
const scope = testScopes();

const JOBS = 20;
const TURNS = 5;
/** Long enough for twenty jobs to start before any takes its first turn. */
const START_DELAY_MS = 8_000;
/**
 * On the 2-core test machine the synchronous snapshot of before measured a
 * worst delay of 2166 ms over the turns (p99 535 ms), the asynchronous one
 * 270 ms (p99 116 ms), with another test run sharing the cores.
 */
const LOOP_BOUND_MS = Number(process.env.NS_LOOP_BOUND_MS ?? 600);

/** One repository of `dirs` × 50 committed files, with a folder of its own for each job. */
function bigRepo(s: Scope, dirs: number): string {
  const repo = s.tempDir('ns-loop-repo-');
  for (let d = 0; d < dirs; d++) {
    mkdirSync(join(repo, `d${d}`));
    for (let f = 0; f < 50; f++) writeFileSync(join(repo, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
  }
  for (let j = 0; j < JOBS; j++) {
    mkdirSync(join(repo, `job-${j}`));
    writeFileSync(join(repo, `job-${j}`, 'README'), 'a job works here\n');
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'many files');
  return repo;
}

const status = async (state: string, reset = false) => ((await call(state, 'status', reset ? { reset_loop: true } : {})) as { event_loop: LoopDelayReport }).event_loop;

/** The recording's `git:` and turn-end markers, in order, as `git:<turn>` / `end:<turn>`. */
async function turnMarkers(job: JobRecord): Promise<string[]> {
  const cast = await readCast(job.paths!.recording);
  return cast.events
    .filter((e) => e.code === 'm')
    .flatMap((e) => {
      const git = /^git:(.+):(?:true|false|null)$/.exec(e.data);
      if (git) return [`git:${git[1]}`];
      if (!e.data.startsWith('agent:')) return [];
      const a = JSON.parse(e.data.slice(6)) as { kind: string; id: string };
      return a.kind === 'turn-end' ? [`end:${a.id}`] : [];
    });
}

describe('issue 8.9: work off the event loop', () => {
  it(`${JOBS} agent-like jobs taking git snapshots in a 10 000-file repository keep the daemon's worst event-loop delay under the bound`, async (ctx) => {
    const s = scope(ctx);
    const repo = bigRepo(s, Number(process.env.NS_LOOP_DIRS ?? 200));
    const config = s.tempDir('ns-loop-claude-');
    const d = await s.daemon(s.stateDir(), ['--max-running', String(JOBS), '--rules', RULES]);
    const env = { NIGHTSHIFT_AGENT: 'claude', CLAUDE_CONFIG_DIR: config };
    await status(d.state, true);
    // Twenty jobs starting in one scheduler tick is another matter (and not git's): the turns are what is measured.
    const started = Date.now();
    for (let j = 0; j < JOBS; j++) {
      const argv = ['node', FAKE, '--session-id', randomUUID(), '--turns', String(TURNS), '--pause', '500', '--delay', String(START_DELAY_MS), `task ${j}`];
      await call(d.state, 'submit', { spec: { ...rawSpec(`agent-${j}`, argv, join(repo, `job-${j}`)), env } });
    }
    await waitUntil(async () => (await Promise.all((await d.jobs()).map((j) => d.show(j.name)))).every((x) => x.signals !== null), START_DELAY_MS, 'all jobs live before their first turn');
    const startup = await status(d.state, true);
    expect(Date.now() - started, 'the jobs took too long to start; the turns began before the measurement').toBeLessThan(START_DELAY_MS);
    const jobs = await waitUntil(
      async () => {
        const all = await d.jobs();
        return all.length === JOBS && all.every((j) => j.state === 'done') && all;
      },
      120_000,
      `all ${JOBS} jobs done`,
      { describe: () => d.describeBoard() },
    );
    const loop = await status(d.state);
    console.log(`event loop: starting ${JOBS} jobs ${JSON.stringify(startup)}; their ${TURNS} turns each ${JSON.stringify(loop)}`);
    expect(jobs.map(sr)).toEqual(Array(JOBS).fill('done/exit'));
    // Every turn's git fact was recorded, each before its turn's end (the order drills replay).
    for (const job of jobs) {
      const marks = await turnMarkers(job);
      const ends = marks.filter((m) => m.startsWith('end:')).map((m) => m.slice(4));
      expect(ends, job.name).toHaveLength(TURNS);
      expect(marks, job.name).toEqual(ends.flatMap((turn) => [`git:${turn}`, `end:${turn}`]));
    }
    expect(loop.max_ms).toBeLessThan(LOOP_BOUND_MS);
  }, 180_000);
});
