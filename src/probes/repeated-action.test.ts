import { describe, expect, it } from 'vitest';
import { bash, config, ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
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
});
