import { describe, expect, it } from 'vitest';
import { bash, config, ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
import { shortestUnseenCycle } from './cycles.js';
import { repeatedAction } from './repeated-action.js';

const readA = (id: string) => pair(id, 'Read', { file_path: 'a.ts' }, 'read:a:v1');

describe('repeated-action', () => {
  it('fires on the same read with the same result, citing each call; the 4th makes it critical', () => {
    const [v, ...rest] = repeatedAction(trajectory('read-loop.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ probe: 'repeated-action', severity: 'critical', turn: 'r01', evidence: ['r02', 'r06', 'r10', 'r12'] });
    expect(v!.message).toContain('Read src/auth.ts');
  });

  it('warns at the 3rd copy inside the window', () => {
    const events = [ev.start('s'), ...readA('c1'), ...bash('c2', 'ls', 'ls:1'), ...readA('c3'), ...readA('c4')];
    expect(repeatedAction(events, P, ctx())).toEqual([
      expect.objectContaining({ severity: 'warn', evidence: ['c1', 'c3', 'c4'], turn: 's' }),
    ]);
  });

  it('stays quiet for distinct commands with distinct outputs', () => {
    expect(repeatedAction(trajectory('clean-coding-task.jsonl'), P, ctx())).toEqual([]);
    const events = [ev.start('s'), ...bash('c1', 'ls', 'ls'), ...bash('c2', 'cat a', 'a'), ...bash('c3', 'cat b', 'b'), ...bash('c4', 'npm test', 't')];
    expect(repeatedAction(events, P, ctx())).toEqual([]);
  });

  it('does not count the same call whose output changed (npm test after each edit)', () => {
    expect(repeatedAction(trajectory('edit-test-loop.jsonl'), P, ctx())).toEqual([]);
  });

  it('exempts pollers: sleep/gh run view, BashOutput, MCP status tools, Codex write_stdin', () => {
    expect(repeatedAction(trajectory('ci-pollers.jsonl'), P, ctx())).toEqual([]);
    const codex = [1, 2, 3, 4].flatMap((i) => pair(`w${i}`, 'write_stdin', { session_id: 7, chars: '' }, 'still-building'));
    const argv = [1, 2, 3].flatMap((i) => pair(`s${i}`, 'shell', { command: ['bash', '-lc', 'sleep 30'] }, 'empty'));
    expect(repeatedAction([ev.start('s'), ...codex, ...argv], P, ctx())).toEqual([]);
  });

  it('restarts counting when a user message starts a new turn', () => {
    const events = trajectory('user-between-repeats.jsonl');
    expect(repeatedAction(events, P, ctx())).toEqual([]);
    // Control: the same four reads without the turn boundary do fire.
    const oneTurn = events.filter((e) => !['u06', 'u07', 'u08'].includes(e.id));
    expect(repeatedAction(oneTurn, P, ctx()).map((v) => v.evidence)).toEqual([['u02', 'u04', 'u09', 'u11']]);
  });

  it('ignores copies further apart than the window', () => {
    const filler = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => bash(`f${from + i}`, `cat f${from + i}`, `f${from + i}`)).flat();
    const events = [ev.start('s'), ...readA('c1'), ...filler(1, 3), ...readA('c2'), ...filler(4, 4), ...readA('c3')];
    expect(repeatedAction(events, P, ctx())).toEqual([]);
    expect(repeatedAction(events, config.profile('long-task'), ctx())).toEqual([]);
  });

  it('does not count a call whose result has not arrived', () => {
    const events = [ev.start('s'), ...readA('c1'), ...readA('c2'), ev.call('c3', 'Read', { file_path: 'a.ts' })];
    expect(repeatedAction(events, P, ctx())).toEqual([]);
  });

  it('counts the same check after a new version as a new attempt (fix-test cycles, rewrites, retries after edits)', () => {
    for (const name of ['rewrite-same-output.jsonl', 'long-fix-test-cycles.jsonl', 'retry-after-edit.jsonl', 'edit-build-check-cycle.jsonl']) {
      for (const profile of config.profiles.values()) expect(repeatedAction(trajectory(name), profile, ctx()), `${name} ${profile.name}`).toEqual([]);
    }
  });

  it('still counts a check repeated after writing the same thing again (no new version)', () => {
    const write = (id: string) => pair(id, 'Write', { file_path: 'a.py', content: 'x = 1' }, 'written');
    const run = (id: string) => bash(id, 'python3 a.py', 'out:41');
    const events = [ev.start('s'), ...write('w1'), ...run('c1'), ...write('w2'), ...run('c2'), ...write('w3'), ...run('c3')];
    expect(repeatedAction(events, P, ctx()).map((v) => v.evidence)).toEqual([
      ['w1', 'w2', 'w3'],
      ['c1', 'c2', 'c3'],
    ]);
  });

  it('catches a loop of searches longer than the window at the third round, citing the whole loop', () => {
    const events = trajectory('search-cycle.jsonl');
    const upTo = (calls: number) => events.slice(0, 1 + 2 * calls);
    expect(repeatedAction(upTo(14), P, ctx())).toEqual([]);
    const [v, ...rest] = repeatedAction(upTo(15), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ probe: 'repeated-action', severity: 'warn', turn: 's01' });
    expect(v!.evidence).toHaveLength(15);
    expect(v!.evidence[0]).toBe('s02');
    expect(v!.message).toContain('the same 7 calls with the same results');
    const [late] = repeatedAction(events, P, ctx());
    expect(late).toMatchObject({ severity: 'critical', evidence: expect.arrayContaining(['s02', 's80']) });
  });

  it('catches a rewrite loop that no-progress counts as new writes', () => {
    const [v, ...rest] = repeatedAction(trajectory('rewrite-cycle.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v!.message).toContain('the same 5 calls');
  });

  it('leaves loops the window sees to the window, and reports a loop at its shortest length', () => {
    expect(shortestUnseenCycle(P)).toBe(4);
    const ab = [1, 2, 3, 4, 5, 6].flatMap((i) => [...bash(`a${i}`, 'git status', 'clean'), ...bash(`b${i}`, 'git diff', 'empty')]);
    expect(repeatedAction([ev.start('s'), ...ab], P, ctx()).map((v) => v.message)).toEqual([
      expect.stringContaining('within 8 tool calls: Bash {"command":"git status"}'),
      expect.stringContaining('within 8 tool calls: Bash {"command":"git diff"}'),
    ]);
  });

  it('does not call a loop what changes from round to round', () => {
    const round = (r: number) => [1, 2, 3, 4, 5].flatMap((i) => bash(`c${r}${i}`, `cat f${i}`, i === 5 ? `f5:${r}` : `f${i}`));
    expect(repeatedAction([ev.start('s'), ...[1, 2, 3, 4].flatMap(round)], P, ctx())).toEqual([]);
  });
});
