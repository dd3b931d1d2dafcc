import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerLine as answer, claudeSession as setUp, removeTemps, userLine as user } from '../../test/fixtures/claude-session.js';
import { until } from '../../test/helpers/until.js';
import { defaultProfile } from '../../test/fixtures/trajectories/load.js';
import { AgentWatch, type AgentWatchEvents, type AgentWatchJob } from './agent-watch.js';

/** Every snapshot reads the tree at once but answers late, as a slow `git status` in a big tree would. */
const SLOW_MS = 400;
/** Snapshots that have read the tree (and are still to answer). */
const read = vi.hoisted(() => ({ count: 0 }));
vi.mock('./git-snapshot.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./git-snapshot.js')>();
  return {
    ...real,
    gitSnapshot: async (cwd: string) => {
      const snap = await real.gitSnapshot(cwd);
      read.count++;
      await new Promise((r) => setTimeout(r, SLOW_MS));
      return snap;
    },
  };
});

/** How long a step may take, and how often it is looked for (a turn's tree is read within SLOW_MS of its start). */
const [WAIT_MS, POLL_MS] = [10_000, 20];

const watches: AgentWatch[] = [];
afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.close()));
  removeTemps();
});

const ignore = () => undefined;

function watch(job: AgentWatchJob, on: Partial<AgentWatchEvents>): AgentWatch {
  const w = new AgentWatch(job, defaultProfile, { tool: ignore, agentEvent: ignore, gitTurn: ignore, response: ignore, problem: ignore, turnEnded: ignore, ...on });
  watches.push(w);
  return w;
}

describe('AgentWatch with a slow git status', () => {
  it("tells each turn's git fact before its end, keeps the agent's order, and the probe judges the finished turn by it", async () => {
    const { cwd, transcript, job } = setUp();
    const seen: string[] = [];
    const w = watch(job, {
      agentEvent: (e) => seen.push(e.kind),
      gitTurn: (_turn, changed) => seen.push(`git:${changed}`),
      response: (r) => seen.push(`${r.kind}:${r.verdict.probe}`),
      problem: (m) => seen.push(`problem:${m}`),
    });
    await w.artefactsAtStart;
    const before = read.count;
    appendFileSync(transcript, `${user('make b.txt')}\n`);
    await until(() => seen.includes('turn-start'), WAIT_MS, 'turn start', POLL_MS);
    // After the turn-start snapshot read the tree (it answers SLOW_MS later): the turn changes a file.
    await until(() => read.count > before, WAIT_MS, 'the turn-start snapshot to read the tree', POLL_MS);
    writeFileSync(join(cwd, 'b.txt'), 'b\n');
    // The first turn's end and the second turn arrive together; the second claims work it did not do.
    appendFileSync(transcript, `${answer('m1', 'Created b.txt.')}\n${user('now commit it')}\n${answer('m2', 'Done. I committed the fix.')}\n`);
    await until(() => seen.filter((s) => s === 'turn-end').length === 2, WAIT_MS, 'two turn ends', POLL_MS);
    await w.settled();
    expect(seen.filter((s) => !s.startsWith('record:'))).toEqual([
      'turn-start',
      'assistant-text',
      'git:true',
      'turn-end',
      'turn-start',
      'assistant-text',
      'git:false',
      'turn-end',
      'escalate:fake-completion',
    ]);
  }, 20_000);

  it('resolves artefacts from the snapshot at start and a fresh one, and close waits for queued events', async () => {
    const { cwd, transcript, job } = setUp();
    const ends: string[] = [];
    const w = watch(job, { agentEvent: (e) => ends.push(e.kind) });
    await w.artefactsAtStart;
    writeFileSync(join(cwd, 'c.txt'), 'c\n');
    expect(await w.artefacts()).toEqual(['c.txt']);
    appendFileSync(transcript, `${user('hi')}\n${answer('m1', 'Hello.')}\n`);
    await until(() => ends.includes('turn-start'), WAIT_MS, 'turn start', POLL_MS);
    await w.close();
    expect(ends).toEqual(['turn-start', 'assistant-text', 'turn-end']);
  }, 20_000);
});
