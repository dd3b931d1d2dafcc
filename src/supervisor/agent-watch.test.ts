import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProfile } from '../../test/fixtures/trajectories/load.js';
import { claudeProjectKey } from '../adapters/claude.js';
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

const temps: string[] = [];
const watches: AgentWatch[] = [];
afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.close()));
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'ns-watch-')));
  temps.push(d);
  return d;
}

const user = (text: string) => JSON.stringify({ type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: text } });
const answer = (id: string, text: string) =>
  JSON.stringify({ type: 'assistant', timestamp: new Date().toISOString(), message: { id, role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn' } });

async function until(probe: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A git work tree with one commit, a Claude config folder, and the transcript path a `--session-id` job owns. */
function setUp() {
  const cwd = temp();
  execFileSync('git', ['init', '-q'], { cwd });
  writeFileSync(join(cwd, 'a.txt'), 'a\n');
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qam', 'x', '--allow-empty'], { cwd });
  const config = temp();
  const session = randomUUID();
  const dir = join(config, 'projects', claudeProjectKey(cwd));
  mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${session}.jsonl`);
  writeFileSync(transcript, '');
  const job = { kind: 'claude' as const, cwd, startedAt: Date.now(), env: { CLAUDE_CONFIG_DIR: config }, argv: ['claude', '--session-id', session], pid: process.pid };
  return { cwd, transcript, job };
}

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
    await until(() => seen.includes('turn-start'), 'turn start');
    // After the turn-start snapshot read the tree (it answers SLOW_MS later): the turn changes a file.
    await until(() => read.count > before, 'the turn-start snapshot to read the tree');
    writeFileSync(join(cwd, 'b.txt'), 'b\n');
    // The first turn's end and the second turn arrive together; the second claims work it did not do.
    appendFileSync(transcript, `${answer('m1', 'Created b.txt.')}\n${user('now commit it')}\n${answer('m2', 'Done. I committed the fix.')}\n`);
    await until(() => seen.filter((s) => s === 'turn-end').length === 2, 'two turn ends');
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
    await until(() => ends.includes('turn-start'), 'turn start');
    await w.close();
    expect(ends).toEqual(['turn-start', 'assistant-text', 'turn-end']);
  }, 20_000);
});
