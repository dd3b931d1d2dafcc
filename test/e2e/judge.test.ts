/**
 * `nightshift judge` end to end: the built CLI re-judging a folder of stored
 * transcripts in every format it reads (real Claude Code session and
 * stream-json files recorded offline, Codex, Gemini, an event file, agent
 * events), as text and as JSON lines, with --compare, and refusing bad input
 * with one line and exit 2 while still judging the good files.
 * Needs a build first (npm run build): bin/nightshift.js runs dist/.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, ROOT, runCli, tempDir } from '../helpers/cli.js';

afterEach(cleanup);

const FIXTURES = join(ROOT, 'test', 'fixtures');

/** A folder of transcripts in nested sub-folders, as ~/.claude/projects and ~/.codex/sessions keep them. */
function mixedFolder(): string {
  const dir = tempDir('ns-judge-');
  const put = (from: string, to: string) => {
    mkdirSync(join(dir, to, '..'), { recursive: true });
    copyFileSync(join(FIXTURES, from), join(dir, to));
  };
  put('transcripts/claude-2.1.112-session-missing-file.jsonl', 'claude/projects/-tmp-p/session.jsonl');
  put('transcripts/claude-2.1.112-stream-read.jsonl', 'claude/stream.jsonl');
  put('transcripts/codex-handwritten.jsonl', 'codex/sessions/2026/01/10/rollout-1.jsonl');
  put('transcripts/gemini-handwritten.jsonl', 'gemini/tmp/x/chats/session-1.jsonl');
  put('trajectories/flip-flop.jsonl', 'events/flip-flop.jsonl');
  writeFileSync(join(dir, 'README.md'), 'not a transcript, and not *.jsonl: not looked at\n');
  return dir;
}

type Line = Record<string, any>;
const jsonLines = (stdout: string): Line[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);

describe('nightshift judge', () => {
  it('--json: one object per transcript of a folder (every format detected), then the summary', async () => {
    const dir = mixedFolder();
    const r = await runCli(['judge', '--json', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    const [summary, ...rest] = [lines.at(-1)!, ...lines.slice(0, -1)];
    expect(rest.map((l) => [l.type, l.path.slice(dir.length + 1), l.format, l.agent])).toEqual([
      ['transcript', 'claude/projects/-tmp-p/session.jsonl', 'claude', 'claude'],
      ['transcript', 'claude/stream.jsonl', 'claude-stream', 'claude'],
      ['transcript', 'codex/sessions/2026/01/10/rollout-1.jsonl', 'codex', 'codex'],
      ['transcript', 'events/flip-flop.jsonl', 'events', 'generic'],
      ['transcript', 'gemini/tmp/x/chats/session-1.jsonl', 'gemini', 'gemini'],
    ]);
    const session = rest[0]!;
    expect(session).toMatchObject({ version: 1, profile: 'default', calls: 5, tokens: 720, turns: 1, first_stop: { step: 4, probe: 'repeated-failure', response: 'escalate' } });
    expect(session.verdicts[0]).toMatchObject({ step: 4, probe: 'repeated-failure', severity: 'warn', response: 'escalate', after_stop: false });
    expect(session.verdicts[0].evidence).toHaveLength(3);
    expect(session.verdicts[0].message).toContain('cat: config.yaml: No such file or directory');
    expect(rest[1]).toMatchObject({ verdicts: [], first_stop: null, calls: 3 });
    expect(rest[3]).toMatchObject({ by_probe: { alternation: 1 }, first_stop: { probe: 'alternation', response: 'escalate' } });
    expect(summary).toMatchObject({ type: 'summary', version: 1, profile: 'default', transcripts: 5, stopped: 2, stopped_by: { 'repeated-failure': 1, alternation: 1 }, errors: [] });
  });

  it('as text: each verdict with its step, probe, response, message and evidence, and where a live job stops', async () => {
    const file = join(FIXTURES, 'transcripts', 'claude-2.1.112-stream-missing-file.jsonl');
    const r = await runCli(['judge', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${file} (claude-stream, profile default)`);
    expect(r.stdout).toMatch(/step +4 +repeated-failure +escalate +Bash failed 3 times in a row .* ← a live job stops here/);
    expect(r.stdout).toMatch(/evidence claude-2\.1\.112-stream-missing-file\.jsonl:5:0 /);
    expect(r.stdout).toContain('default: 5 calls, 720 tokens, 1 turn(s); verdicts: repeated-failure 1, repeated-action 1; first stop at step 4: repeated-failure (escalate)');
    expect(r.stdout).toContain('judged 1 transcript(s)');
  });

  it('--compare: what another profile would have done, side by side', async () => {
    const file = join(FIXTURES, 'trajectories', 'long-migration.jsonl');
    const json = await runCli(['judge', '--json', '--compare', 'long-task', file]);
    expect(json.code).toBe(0);
    const [t, s] = jsonLines(json.stdout);
    expect(t).toMatchObject({ profile: 'default', first_stop: { step: 81, probe: 'budget-overrun', response: 'stop' }, compare: { profile: 'long-task', verdicts: [], first_stop: null } });
    expect(s).toMatchObject({ stopped: 1, compare: { profile: 'long-task', stopped: 0 } });
    const text = await runCli(['judge', '--compare', 'long-task', file]);
    expect(text.stdout).toMatch(/step +81 +budget-overrun +default: stop +long-task: — +over budget/);
  });

  it('--agent names the format instead of detecting it', async () => {
    const file = join(FIXTURES, 'transcripts', 'claude-2.1.112-stream-read.jsonl');
    const r = await runCli(['judge', '--json', '--agent', 'claude', file]);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ format: 'claude', agent: 'claude' });
  });

  it('a folder with a file that is no transcript: the good ones are judged, the bad one named with its line, exit 2', async () => {
    const dir = mixedFolder();
    writeFileSync(join(dir, 'claude', 'broken.jsonl'), '{"type":"user"\n');
    writeFileSync(join(dir, 'labels.jsonl'), '{"file":"a.jsonl","label":"stuck"}\n');
    const r = await runCli(['judge', '--json', dir]);
    expect(r.code).toBe(2);
    const lines = jsonLines(r.stdout);
    expect(lines.filter((l) => l.type === 'transcript')).toHaveLength(5);
    expect(r.stderrLines).toEqual([
      `nightshift: ${join(dir, 'claude', 'broken.jsonl')}:1: not a transcript: invalid JSON: ${r.stderrLines[0]!.split('invalid JSON: ')[1]}`,
      expect.stringMatching(new RegExp(`^nightshift: ${join(dir, 'labels.jsonl')}: not a transcript: none of its 1 record`)),
    ]);
    expect(lines.at(-1)!.errors).toHaveLength(2);
  });

  it.each([
    [['judge', '/nonexistent/ns-judge'], 'nightshift: /nonexistent/ns-judge: no such file or folder'],
    [['judge', '--profile', 'nope', 'x'], /^nightshift: --profile "nope": unknown probe profile; known: default, long-task, quick/],
    [['judge', '--compare', 'nope', 'x'], /^nightshift: --compare "nope": unknown probe profile/],
    [['judge', '--agent', 'cursor', 'x'], 'nightshift: --agent "cursor": expected one of claude, claude-stream, codex, gemini, generic, events'],
    [['judge', join(ROOT, 'package.json')], /^nightshift: .*\/package\.json:1: not a transcript: invalid JSON: /],
    [['judge', join(ROOT, 'rules', 'probes.yaml')], /^nightshift: .*rules\/probes\.yaml:1: not a transcript: invalid JSON/],
  ])('bad input %j: one line, exit 2', async (args, line) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderrLines).toHaveLength(1);
    if (typeof line === 'string') expect(r.stderrLines[0]).toBe(line);
    else expect(r.stderrLines[0]).toMatch(line);
  });
});
