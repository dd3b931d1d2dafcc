import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { config, defaultProfile as P, trajectory, trajectoryNames } from '../../test/fixtures/trajectories/load.js';
import { readTranscript } from '../adapters/stored.js';
import type { AgentEvent } from '../core/agent-events.js';
import { judgeEvents, judgeTranscript, summarise } from './judge.js';
import { AgentMonitor } from '../agents/monitor.js';

const fixture = (dir: string, name: string) => fileURLToPath(new URL(`../../test/fixtures/${dir}/${name}`, import.meta.url));
const judged = async (dir: string, name: string, profile = P) => judgeTranscript(await readTranscript(fixture(dir, name)), profile);
const shape = (r: { verdicts: readonly { probe: string; response: string }[] }) => r.verdicts.map((v) => `${v.probe}:${v.response}`);

/** test/fixtures/trajectories/README.md's table: what fires under `default`, and the monitor's response. */
const TRAJECTORIES: Record<string, string[]> = {
  'announce-colon-zh.jsonl': ['announce-then-stop:nudge'],
  'announce-conditional.jsonl': ['announce-then-stop:nudge'],
  'announce-midparagraph.jsonl': ['announce-then-stop:nudge'],
  'answers-with-offers.jsonl': [],
  'ci-pollers.jsonl': [],
  'claim-after-failed-test.jsonl': ['unverified-change:record'],
  'clean-coding-task.jsonl': [],
  'edit-build-check-cycle.jsonl': [],
  'edit-test-loop.jsonl': [],
  'error-loop-files.jsonl': ['repeated-failure:escalate'],
  'explore-many-files.jsonl': [],
  'failure-loop.jsonl': ['repeated-failure:escalate'],
  'fake-completion-zh.jsonl': ['fake-completion:escalate'],
  'fake-completion.jsonl': ['fake-completion:escalate'],
  'fix-test-changing-failures.jsonl': [],
  'flip-flop.jsonl': ['alternation:escalate'],
  'long-fix-test-cycles.jsonl': [],
  'long-migration.jsonl': ['wrap-up:nudge', 'budget-overrun:stop', 'wrap-up:nudge'],
  'narrated-no-tools.jsonl': ['fake-completion:escalate'],
  'narrated-test-run.jsonl': ['fake-completion:escalate'],
  'no-progress.jsonl': ['no-progress:escalate'],
  'pollers-deploy.jsonl': [],
  'read-loop.jsonl': ['repeated-action:escalate'],
  'retry-after-edit.jsonl': [],
  'rewrite-cycle.jsonl': ['repeated-action:escalate'],
  'rewrite-same-output.jsonl': [],
  'search-cycle.jsonl': ['repeated-action:escalate', 'no-progress:escalate'],
  'seed-a-logistics-loop.jsonl': ['repeated-action:escalate', 'fake-completion:escalate'],
  'seed-b-fake-reschedule.jsonl': ['fake-completion:escalate'],
  'seed-c-reschedule.jsonl': [],
  'seed-d-long-chain.jsonl': [],
  'unverified-change.jsonl': ['unverified-change:record'],
  'user-between-repeats.jsonl': [],
};

describe('judge over the trajectory fixtures (agent events, as a file)', () => {
  it('has a row for every fixture', () => {
    expect(Object.keys(TRAJECTORIES).sort()).toEqual(trajectoryNames());
  });

  it.each(Object.entries(TRAJECTORIES))('%s: %j', async (name, expected) => {
    const r = await judged('trajectories', name);
    expect(r.format).toBe('events');
    expect(shape(r)).toEqual(expected);
    // The file reader gives the test loader's events, and judging gives what the live monitor answers, in order.
    expect(await readTranscript(fixture('trajectories', name)).then((t) => t.events)).toEqual(trajectory(name));
    const monitor = new AgentMonitor(P);
    const live = trajectory(name).flatMap((e) => monitor.observe(e, { gitChanged: null }));
    expect(r.verdicts.map((v) => [v.probe, v.response, v.message, v.evidence])).toEqual(live.map((x) => [x.verdict.probe, x.kind, x.why, x.verdict.evidence]));
  });

  it('says at which tool call each verdict came, and where a live job would have stopped', async () => {
    const read = await judged('trajectories', 'read-loop.jsonl');
    expect(read.verdicts[0]).toMatchObject({ step: 5, probe: 'repeated-action', evidence: ['r02', 'r06', 'r10'], after_stop: false });
    expect(read.first_stop).toEqual({ step: 5, probe: 'repeated-action', response: 'escalate' });
    const budget = await judged('trajectories', 'long-migration.jsonl');
    expect(budget.first_stop).toEqual({ step: 81, probe: 'budget-overrun', response: 'stop' });
    expect(budget.calls).toBe(120);
  });

  it('lets the long migration run under long-task, and --compare shows both', async () => {
    const t = await readTranscript(fixture('trajectories', 'long-migration.jsonl'));
    const r = judgeTranscript(t, P, config.profile('long-task'));
    expect(shape(r)).toEqual(['wrap-up:nudge', 'budget-overrun:stop', 'wrap-up:nudge']);
    expect(r.compare).toMatchObject({ profile: 'long-task', verdicts: [], first_stop: null, by_probe: {} });
    const s = summarise([r], [], 'default', 'long-task');
    expect(s).toMatchObject({ transcripts: 1, stopped: 1, stopped_by: { 'budget-overrun': 1 }, compare: { profile: 'long-task', stopped: 0 } });
  });
});

/** test/fixtures/transcripts/README.md's judge column (profile default). */
const TRANSCRIPTS: Record<string, { format: string; verdicts: string[]; calls: number; tokens: number }> = {
  'claude-2.1.112-reject.jsonl': { format: 'claude', verdicts: [], calls: 1, tokens: 120 },
  'claude-2.1.112-session-missing-file.jsonl': { format: 'claude', verdicts: ['repeated-failure:escalate', 'repeated-action:escalate'], calls: 5, tokens: 720 },
  'claude-2.1.112-stream-missing-file.jsonl': { format: 'claude-stream', verdicts: ['repeated-failure:escalate', 'repeated-action:escalate'], calls: 5, tokens: 720 },
  'claude-2.1.112-stream-read.jsonl': { format: 'claude-stream', verdicts: [], calls: 3, tokens: 480 },
  'claude-2.1.112-touch.jsonl': { format: 'claude', verdicts: ['unverified-change:record'], calls: 1, tokens: 240 },
  'claude-2.1.112-two-turns.jsonl': { format: 'claude', verdicts: ['fake-completion:escalate'], calls: 2, tokens: 480 },
  'codex-handwritten.jsonl': { format: 'codex', verdicts: ['unverified-change:record'], calls: 4, tokens: 3970 },
  'gemini-handwritten.jsonl': { format: 'gemini', verdicts: ['unverified-change:record'], calls: 3, tokens: 5554 },
  'generic-events.jsonl': { format: 'generic', verdicts: [], calls: 2, tokens: 0 },
};

describe('judge over the agent transcripts', () => {
  it.each(Object.entries(TRANSCRIPTS))('%s', async (name, want) => {
    const r = await judged('transcripts', name);
    expect({ format: r.format, verdicts: shape(r), calls: r.calls, tokens: r.tokens }).toEqual(want);
  });

  it('judges one real Claude Code run alike from its session file and from its stream-json output', async () => {
    const session = await judged('transcripts', 'claude-2.1.112-session-missing-file.jsonl');
    const stream = await judged('transcripts', 'claude-2.1.112-stream-missing-file.jsonl');
    const same = (r: typeof session) => r.verdicts.map((v) => [v.step, v.probe, v.response, v.message, v.evidence.length, v.after_stop]);
    expect(same(stream)).toEqual(same(session));
    expect(stream.first_stop).toEqual({ step: 4, probe: 'repeated-failure', response: 'escalate' });
    // Two verdicts of one event come at one moment: neither is "after a stop".
    expect(stream.verdicts.map((v) => v.after_stop)).toEqual([false, false]);
  });

  it('keeps a torn line as a problem and judges the rest', async () => {
    const r = await judged('transcripts', 'generic-events.jsonl');
    expect(r.problems).toEqual([expect.stringMatching(/generic-events\.jsonl:5: invalid JSON/)]);
  });
});

describe('judgeEvents', () => {
  const call = (id: string, n: number): AgentEvent[] => [
    { kind: 'tool-call', id, t: n, tool: 'Bash', args: { command: 'cat x' }, canonical: 'Bash cat x' },
    { kind: 'tool-result', id: `${id}r`, t: n + 1, callId: id, tool: 'Bash', ok: false, fingerprint: 'e', errorHead: 'No such file' },
  ];

  it('goes on judging after the first escalation, marking what came later, and times each verdict by its own event', () => {
    const first: AgentEvent[] = [{ kind: 'turn-start', id: 's1', t: 1000, text: 'go' }, ...call('a', 1001), ...call('b', 1003), ...call('c', 1005)];
    const second: AgentEvent[] = [{ kind: 'turn-start', id: 's2', t: 2000, text: 'try again' }, ...call('d', 2001), ...call('e', 2003), ...call('f', 2005)];
    const j = judgeEvents([...first, ...second], P);
    const failures = j.verdicts.filter((v) => v.probe === 'repeated-failure');
    expect(failures.map((v) => [v.step, v.turn, v.after_stop, v.t, v.at])).toEqual([
      [3, 's1', false, 1006, 'cr'],
      [6, 's2', true, 2006, 'fr'],
    ]);
    expect(j.first_stop).toEqual({ step: 3, probe: 'repeated-failure', response: 'escalate' });
    expect(j.turns).toBe(2);
  });
});
