import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../core/agent-events.js';
import type { ToolEvent } from '../core/tool-events.js';
import { ToolTracker } from '../core/tool-tracker.js';
import { ANNOUNCE_WAIT_MS, claudeProjectKey } from './claude.js';
import { adapterFor, TranscriptFollower } from './index.js';
import { CREATED_SLACK_MS } from './locate.js';
import type { AgentJob } from './types.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/transcripts/', import.meta.url));
const temps: string[] = [];
const followers: TranscriptFollower[] = [];
afterEach(async () => {
  await Promise.all(followers.splice(0).map((f) => f.close()));
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(d);
  return d;
}

interface Seen {
  events: AgentEvent[];
  tools: ToolEvent[];
  problems: string[];
}

function follow(job: AgentJob, kind: 'claude' | 'codex' | 'gemini' | 'generic' = 'claude', safetyPollMs = 200): { f: TranscriptFollower; seen: Seen } {
  const f = new TranscriptFollower(adapterFor(kind), job, { locatePollMs: 30, safetyPollMs });
  followers.push(f);
  const seen: Seen = { events: [], tools: [], problems: [] };
  f.onAgentEvent((e) => seen.events.push(e));
  f.onEvent((e) => seen.tools.push(e));
  f.onProblem((m) => seen.problems.push(m));
  return { f, seen };
}

async function until(probe: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A recorded Claude transcript moved to another cwd (the file records its cwd). */
function claudeFixture(name: string, cwd: string): string {
  const text = readFileSync(FIXTURES + name, 'utf8');
  const recorded = /"cwd":"([^"]+)"/.exec(text)![1]!;
  return text.split(recorded).join(cwd);
}

/** The events a direct parse of `text` gives, with ids for file `base`. */
function expected(kind: 'claude' | 'codex' | 'gemini', text: string, base: string): AgentEvent[] {
  const a = adapterFor(kind);
  const s = a.newState(base);
  return text.split('\n').flatMap((l, i) => {
    const r = a.parse(l, i + 1, s);
    return Array.isArray(r) ? r : [];
  });
}

/** Appends in uneven pieces (mid-line, mid-character), some closer together than chokidar's 50 ms. */
async function appendInPieces(path: string, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  const sizes = [1, 7, 300, 2, 1500, 64, 3];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length]!;
    appendFileSync(path, bytes.subarray(at, at + n));
    at += n;
    await sleep(i % 4 === 0 ? 60 : 3);
  }
}

function claudeJob(home: string, cwd: string, extra: Partial<AgentJob> = {}): AgentJob {
  return { cwd, startedAt: Date.now(), env: { HOME: home }, claimed: new Set(), ...extra };
}

function claudeDir(home: string, cwd: string): string {
  const dir = join(home, '.claude', 'projects', claudeProjectKey(cwd));
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('TranscriptFollower', () => {
  it('waits for the transcript, then follows it from the start while it is appended in pieces (partial lines)', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    // No safety poll: the watcher alone must see every piece, however close together.
    const { f, seen } = follow(claudeJob(home, cwd), 'claude', 0);
    await sleep(100); // it is looking; nothing there yet
    expect(f.path).toBeNull();
    const text = claudeFixture('claude-2.1.112-two-turns.jsonl', cwd) + '{"type":"user","message":{"role":"user","content":"è€'; // a torn last line stays unread
    const path = join(claudeDir(home, cwd), '0e0e0e0e-1111-4222-8333-444444444444.jsonl');
    writeFileSync(path, '');
    await appendInPieces(path, text);
    const want = expected('claude', text, '0e0e0e0e-1111-4222-8333-444444444444.jsonl');
    await until(() => seen.events.length >= want.length, 'all events');
    await sleep(150);
    expect(await f.found).toBe(path);
    expect(seen.events).toEqual(want);
    expect(seen.problems).toEqual([]);
    // Tool events for the watchdog: each finish pairs with its start.
    expect(seen.tools.map((e) => `${e.phase} ${e.name} ${e.ok ?? ''}`)).toEqual(['start Bash ', 'finish Bash true', 'start Bash ', 'finish Bash false']);
    const tracker = new ToolTracker();
    for (const e of seen.tools) tracker.observe(e, 0);
    expect(tracker.inFlight).toBe(0);
    // The rest of the torn line arrives: one more turn-start, nothing repeated.
    appendFileSync(path, '"}}\n');
    await until(() => seen.events.length === want.length + 1, 'the completed line');
    expect(seen.events.at(-1)).toMatchObject({ kind: 'turn-start', text: 'è€' });
  });

  it('two jobs in one cwd, the later one\'s agent writing first: each follows the file with its own prompt', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const claimed = new Set<string>();
    const startedAt = Date.now();
    const base = ['node', 'cli.js', '--permission-mode', 'default'];
    const a = follow(claudeJob(home, cwd, { claimed, startedAt, argv: [...base, 'please run touch x'] }));
    const b = follow(claudeJob(home, cwd, { claimed, startedAt: startedAt + 5, argv: [...base, 'please remove the build folder'] }));
    const dir = claudeDir(home, cwd);
    const fileB = join(dir, 'bbbbbbbb-0000-4000-8000-000000000000.jsonl');
    const fileA = join(dir, 'aaaaaaaa-0000-4000-8000-000000000000.jsonl');
    writeFileSync(fileB, claudeFixture('claude-2.1.112-reject.jsonl', cwd));
    await sleep(200); // both followers have seen B's file; A must not take it
    writeFileSync(fileA, claudeFixture('claude-2.1.112-touch.jsonl', cwd));
    expect(await a.f.found).toBe(fileA);
    expect(await b.f.found).toBe(fileB);
    await until(() => a.seen.events.some((e) => e.kind === 'turn-end') && b.seen.events.some((e) => e.kind === 'turn-end'), 'both turns');
    expect(a.seen.events.find((e) => e.kind === 'turn-start')).toMatchObject({ text: 'please run touch x' });
    expect(b.seen.events.find((e) => e.kind === 'turn-start')).toMatchObject({ text: 'please remove the build folder' });
    expect([...claimed].sort()).toEqual([fileA, fileB].sort());
  });

  it('two interactive jobs started one after the other: each takes the first unclaimed file created after it started', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const claimed = new Set<string>();
    const dir = claudeDir(home, cwd);
    const old = join(dir, '00000000-0000-4000-8000-000000000000.jsonl');
    writeFileSync(old, claudeFixture('claude-2.1.112-touch.jsonl', cwd)); // an earlier session
    await sleep(CREATED_SLACK_MS + 50);
    const a = follow(claudeJob(home, cwd, { claimed }));
    await sleep(50);
    const fileA = join(dir, '11111111-0000-4000-8000-000000000000.jsonl');
    writeFileSync(fileA, claudeFixture('claude-2.1.112-touch.jsonl', cwd));
    expect(await a.f.found).toBe(fileA);
    const b = follow(claudeJob(home, cwd, { claimed }));
    await sleep(100);
    expect(b.f.path).toBeNull(); // A's file is taken, the old one predates B
    const fileB = join(dir, '22222222-0000-4000-8000-000000000000.jsonl');
    writeFileSync(fileB, claudeFixture('claude-2.1.112-reject.jsonl', cwd));
    expect(await b.f.found).toBe(fileB);
  });

  it('--session-id names the file exactly, even when another file is newer', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const dir = claudeDir(home, cwd);
    const id = '33333333-0000-4000-8000-000000000000';
    const { f } = follow(claudeJob(home, cwd, { argv: ['claude', '--session-id', id] }));
    writeFileSync(join(dir, '44444444-0000-4000-8000-000000000000.jsonl'), claudeFixture('claude-2.1.112-touch.jsonl', cwd));
    await sleep(100);
    expect(f.path).toBeNull();
    writeFileSync(join(dir, `${id}.jsonl`), claudeFixture('claude-2.1.112-reject.jsonl', cwd));
    expect(await f.found).toBe(join(dir, `${id}.jsonl`));
  });

  it("the job's pid (or an ancestor of the agent's) leads to the session through ~/.claude/sessions/<pid>.json", async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const dir = claudeDir(home, cwd);
    const id = '55555555-0000-4000-8000-000000000000';
    mkdirSync(join(home, '.claude', 'sessions'));
    // This test process plays the agent; its parent plays the job's child.
    writeFileSync(join(home, '.claude', 'sessions', `${process.pid}.json`), JSON.stringify({ pid: process.pid, sessionId: id, cwd }));
    writeFileSync(join(home, '.claude', 'sessions', '1.json'), JSON.stringify({ pid: 1, sessionId: 'not-ours', cwd }));
    writeFileSync(join(dir, '66666666-0000-4000-8000-000000000000.jsonl'), claudeFixture('claude-2.1.112-touch.jsonl', cwd));
    writeFileSync(join(dir, `${id}.jsonl`), claudeFixture('claude-2.1.112-reject.jsonl', cwd));
    const { f } = follow(claudeJob(home, cwd, { pid: process.ppid, startedAt: Date.now() - 5000 }));
    expect(await f.found).toBe(join(dir, `${id}.jsonl`));
  });

  it('with a pid: never a session another live process announced; a young unannounced file gets time for its owner to speak', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const dir = claudeDir(home, cwd);
    const sessions = join(home, '.claude', 'sessions');
    mkdirSync(sessions);
    const announce = (pid: number, sessionId: string) => writeFileSync(join(sessions, `${pid}.json`), JSON.stringify({ pid, sessionId, cwd }));
    const theirs = '88888888-0000-4000-8000-000000000000';
    const mine = '99999999-0000-4000-8000-000000000000';
    announce(1, theirs); // pid 1 runs, and is no descendant of our job
    announce(999999999, mine); // a crashed agent's leftover says nothing
    writeFileSync(join(sessions, '2.json'), '{"pid": 2, "sess'); // torn while written: ignored
    writeFileSync(join(dir, `${theirs}.jsonl`), claudeFixture('claude-2.1.112-touch.jsonl', cwd));
    const claude = adapterFor('claude');
    // This test process plays our agent; its parent plays the job's child.
    const job: AgentJob = { cwd, startedAt: Date.now(), env: { HOME: home }, pid: process.ppid, claimed: new Set() };
    expect(await claude.locate(job)).toBeNull();
    writeFileSync(join(dir, `${mine}.jsonl`), claudeFixture('claude-2.1.112-reject.jsonl', cwd));
    expect(await claude.locate(job)).toBeNull(); // unannounced and young: maybe someone else's
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + ANNOUNCE_WAIT_MS);
      expect(await claude.locate(job)).toBe(join(dir, `${mine}.jsonl`)); // nobody claimed it in time
    } finally {
      vi.useRealTimers();
    }
    const other: AgentJob = { ...job, claimed: new Set() };
    announce(process.pid, mine);
    expect(await claude.locate(other)).toBe(join(dir, `${mine}.jsonl`)); // announced: at once
  });

  it('an agent that wrote its whole transcript and exited between two looks is still read when following closes', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const dir = claudeDir(home, cwd);
    mkdirSync(join(home, '.claude', 'sessions'));
    // With a pid to go by, a young unannounced transcript waits for its owner to speak up; the next look is far off.
    const f = new TranscriptFollower(adapterFor('claude'), { cwd, startedAt: Date.now(), env: { HOME: home }, pid: process.ppid, claimed: new Set() }, { locatePollMs: 60_000 });
    followers.push(f);
    const events: AgentEvent[] = [];
    f.onAgentEvent((e) => events.push(e));
    await sleep(50);
    writeFileSync(join(dir, '77777777-0000-4000-8000-000000000000.jsonl'), claudeFixture('claude-2.1.112-reject.jsonl', cwd));
    await f.close();
    expect(events.some((e) => e.kind === 'turn-end')).toBe(true);
  });

  it('Codex: the rollout whose session_meta cwd is the job\'s', async () => {
    const codexHome = temp('ns-ad-codex-');
    const cwd = temp('ns-ad-proj-');
    const now = new Date();
    const day = join(codexHome, 'sessions', String(now.getUTCFullYear()), String(now.getUTCMonth() + 1).padStart(2, '0'), String(now.getUTCDate()).padStart(2, '0'));
    mkdirSync(day, { recursive: true });
    const text = readFileSync(FIXTURES + 'codex-handwritten.jsonl', 'utf8');
    const { f, seen } = follow({ cwd, startedAt: Date.now(), env: { HOME: '/nonexistent', CODEX_HOME: codexHome }, claimed: new Set() }, 'codex');
    writeFileSync(join(day, 'rollout-2026-01-10T09-00-00-other.jsonl'), text); // cwd /work/demo: another project
    const mine = join(day, 'rollout-2026-01-10T09-00-01-mine.jsonl');
    writeFileSync(mine, text.split('/work/demo').join(cwd));
    expect(await f.found).toBe(mine);
    await until(() => seen.events.filter((e) => e.kind === 'turn-end').length === 2, 'two turns');
    expect(seen.tools.filter((e) => e.phase === 'finish').map((e) => e.ok)).toEqual([true, false, true, false]);
  });

  it('Gemini: the chats folder whose .project_root is the job\'s cwd', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const chats = join(home, '.gemini', 'tmp', 'proj-1', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(home, '.gemini', 'tmp', 'proj-1', '.project_root'), cwd);
    const { f, seen } = follow({ cwd, startedAt: Date.now(), env: { HOME: home }, claimed: new Set() }, 'gemini');
    const path = join(chats, 'session-2026-01-10T10-00-5f0c2a9e.jsonl');
    writeFileSync(path, readFileSync(FIXTURES + 'gemini-handwritten.jsonl'));
    expect(await f.found).toBe(path);
    await until(() => seen.events.filter((e) => e.kind === 'turn-start').length === 3, 'three prompts');
  });

  it('reports a bad line and goes on; a rewritten file is read again, repeating nothing already reported', async () => {
    const dir = temp('ns-ad-ev-');
    const events = join(dir, 'events.jsonl');
    const { f, seen } = follow({ cwd: dir, startedAt: Date.now(), env: { NIGHTSHIFT_EVENTS: events }, claimed: new Set() }, 'generic');
    writeFileSync(events, '{"type":"tool_start","name":"Bash","id":"1"}\nnot json\n');
    await until(() => seen.problems.length === 1 && seen.events.length === 1, 'the bad line');
    expect(seen.problems[0]).toBe(`${events}:2: invalid JSON: Unexpected token 'o', "not json" is not valid JSON`);
    appendFileSync(events, '{"type":"tool_end","name":"Bash","id":"1","ok":true}\n');
    await until(() => seen.events.length === 2, 'the end');
    // Rewritten shorter (same first lines), then the old third line again and a new one.
    writeFileSync(events, '{"type":"tool_start","name":"Bash","id":"1"}\nnot json\n');
    await until(() => seen.problems.length === 2, 'the restart');
    expect(seen.problems[1]).toMatch(/shrank or was replaced/);
    appendFileSync(events, '{"type":"tool_end","name":"Bash","id":"1","ok":true}\n{"type":"tool_start","name":"Edit"}\n');
    await until(() => seen.events.length === 3, 'a new event');
    // A different line where an old one was would be new and reported; here nothing but line 4 is.
    appendFileSync(events, 'x\n');
    await until(() => seen.problems.length === 3, 'the next bad line');
    expect(seen.problems[2]).toBe(`${events}:5: invalid JSON: Unexpected token 'x', "x" is not valid JSON`);
    expect(seen.events.map((e) => e.id)).toEqual(['events.jsonl:1:0', 'events.jsonl:3:0', 'events.jsonl:4:0']);
    expect(seen.tools.map((e) => `${e.phase}:${e.name}:${e.id}`)).toEqual(['start:Bash:events.jsonl:1:0', 'finish:Bash:events.jsonl:1:0', 'start:Edit:events.jsonl:4:0']);
    await f.close();
  });

  it('close() while still looking resolves found with null', async () => {
    const home = temp('ns-ad-home-');
    const { f } = follow(claudeJob(home, temp('ns-ad-proj-')));
    await sleep(50);
    await f.close();
    expect(await f.found).toBeNull();
  });

  it('says once when no transcript turns up, and keeps looking', async () => {
    const home = temp('ns-ad-home-');
    const cwd = temp('ns-ad-proj-');
    const f = new TranscriptFollower(adapterFor('claude'), claudeJob(home, cwd), { locatePollMs: 20, missingAfterMs: 60 });
    followers.push(f);
    const problems: string[] = [];
    f.onProblem((m) => problems.push(m));
    await until(() => problems.length > 0, 'the warning');
    await sleep(100);
    expect(problems).toEqual([`no claude transcript for the job in ${cwd} after 0.1 s; still looking`]);
    writeFileSync(join(claudeDir(home, cwd), '77777777-0000-4000-8000-000000000000.jsonl'), '');
    expect(await f.found).toMatch(/77777777/);
  });
});

