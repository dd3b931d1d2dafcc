import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../core/agent-events.js';
import { claudeProjectKey } from './claude.js';
import { adapterFor, TranscriptFollower, type ResumePoint } from './index.js';

const SID = '0b9d8a56-1f2e-4c3b-9a8d-7e6f5a4b3c2d';
const temps: string[] = [];
const followers: TranscriptFollower[] = [];
afterEach(async () => {
  await Promise.all(followers.splice(0).map((f) => f.close()));
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

const user = (content: unknown) => JSON.stringify({ type: 'user', message: { role: 'user', content }, timestamp: '2026-01-01T00:00:00Z' });
const assistant = (id: string, content: object[], stop: string) =>
  JSON.stringify({ type: 'assistant', message: { id, role: 'assistant', content, stop_reason: stop, usage: { input_tokens: 100, output_tokens: 20 } }, timestamp: '2026-01-01T00:00:01Z' });
const claimTurn = [user('please create notes.md'), assistant('m1', [{ type: 'text', text: 'I created notes.md.' }], 'end_turn')];
const resumedTurn = [
  user('Continue the task. Your claim of completion was refused.'),
  assistant('m2', [{ type: 'tool_use', id: 'tu2', name: 'Bash', input: { command: 'touch notes.md' } }], 'tool_use'),
  user([{ type: 'tool_result', tool_use_id: 'tu2', content: '' }]),
  assistant('m3', [{ type: 'text', text: 'Created notes.md.' }], 'end_turn'),
];

/** A Claude transcript named by --session-id, holding `lines`; the follower with `resumeFrom`. */
function setUp(lines: string[], resumeFrom?: Omit<ResumePoint, 'path'> & { path?: string }) {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'ns-resume-')));
  temps.push(home);
  const cwd = join(home, 'proj');
  const dir = join(home, '.claude', 'projects', claudeProjectKey(cwd));
  mkdirSync(cwd, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${SID}.jsonl`);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  const job = { cwd, startedAt: Date.now(), env: { HOME: home }, argv: ['claude', '--session-id', SID], claimed: new Set<string>() };
  const f = new TranscriptFollower(adapterFor('claude'), job, { locatePollMs: 20, safetyPollMs: 50, ...(resumeFrom && { resumeFrom: { path, ...resumeFrom } }) });
  followers.push(f);
  const seen = { events: [] as AgentEvent[], problems: [] as string[] };
  f.onAgentEvent((e) => seen.events.push(e));
  f.onProblem((m) => seen.problems.push(m));
  return { f, seen, path };
}

async function until(probe: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !probe(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
  }
}

const kinds = (events: AgentEvent[]) => events.map((e) => e.kind);

describe('TranscriptFollower resumeFrom (a resumed job on the old session file)', () => {
  it('reports where it stands: the complete lines read and the last event id', async () => {
    const { f, seen } = setUp(claimTurn);
    await until(() => kinds(seen.events).includes('turn-end'), 'the old turn');
    expect(f.position).toEqual({ path: f.path, lines: 2, lastEvent: seen.events.at(-1)!.id });
  });

  it('emits nothing the old job judged, then the new turn with the ids it has in the file', async () => {
    const old = setUp(claimTurn);
    await until(() => kinds(old.seen.events).includes('turn-end'), 'the old turn');
    const point = { lines: old.f.position!.lines, lastEvent: old.f.position!.lastEvent };
    await old.f.close();
    const { seen, path } = setUp(claimTurn, point);
    appendFileSync(path, resumedTurn.map((l) => `${l}\n`).join(''));
    await until(() => kinds(seen.events).includes('turn-end'), 'the resumed turn');
    expect(kinds(seen.events)).toEqual(['turn-start', 'usage', 'tool-call', 'tool-result', 'usage', 'assistant-text', 'turn-end']);
    expect(seen.events[0]!.id).toBe(`${SID}.jsonl:3:0`);
    expect(seen.events.filter((e) => e.kind === 'turn-end').map((e) => (e as { finalText: string }).finalText)).toEqual(['Created notes.md.']);
    expect(seen.problems).toEqual([]);
  });

  it('the old turn\'s tail written on resuming (a late tool result, its end) is the old job\'s: skipped until the next turn starts', async () => {
    const cut = [user('please list'), assistant('m1', [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'sleep 30' } }], 'tool_use')];
    const { seen, path } = setUp(cut, { lines: 2, lastEvent: null });
    appendFileSync(path, [user([{ type: 'tool_result', tool_use_id: 'tu1', content: 'interrupted', is_error: true }]), ...resumedTurn].map((l) => `${l}\n`).join(''));
    await until(() => kinds(seen.events).includes('turn-end'), 'the resumed turn');
    expect(kinds(seen.events)[0]).toBe('turn-start');
    expect(seen.events.filter((e) => e.kind === 'tool-result')).toHaveLength(1);
  });

  it('says so when the file no longer matches the resume point', async () => {
    const { seen } = setUp(claimTurn, { lines: 2, lastEvent: `${SID}.jsonl:2:9` });
    await until(() => seen.problems.length > 0, 'a problem');
    expect(seen.problems[0]).toMatch(/:2: the resume point's last event was .*:2:9, the file now gives .*:2:\d/);
    expect(seen.events).toEqual([]);
  });

  it('another file than the resume point\'s is followed from its start', async () => {
    const { seen } = setUp(claimTurn, { path: '/elsewhere/other.jsonl', lines: 2, lastEvent: null });
    await until(() => kinds(seen.events).includes('turn-end'), 'the turn');
    expect(kinds(seen.events)[0]).toBe('turn-start');
  });
});

describe('TranscriptFollower resumeFrom adopted (the same job under a new daemon)', () => {
  it('judges nothing the file held when it was found, and everything appended after it, in the same turn', async () => {
    const { f, seen, path } = setUp([user('please create notes.md'), resumedTurn[1]!], { path: '', lines: 0, lastEvent: null, adopted: true });
    await until(() => f.position !== null && f.position.lines === 2, 'the transcript read to its end');
    expect(seen.events).toEqual([]);
    appendFileSync(path, `${resumedTurn[2]}\n${resumedTurn[3]}\n`);
    await until(() => kinds(seen.events).includes('turn-end'), 'the turn end');
    // The call's result and the turn's end are new; the turn's start and the call itself were the old daemon's.
    expect(kinds(seen.events)).not.toContain('turn-start');
    expect(kinds(seen.events)).not.toContain('tool-call');
    expect(kinds(seen.events)).toContain('tool-result');
    expect(seen.problems).toEqual([]);
  });
});
