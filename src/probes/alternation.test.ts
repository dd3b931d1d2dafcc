import { describe, expect, it } from 'vitest';
import { bash, ctx, defaultProfile as P, ev, trajectory } from '../../test/fixtures/trajectories/load.js';
import { alternation } from './alternation.js';
import { repeatedAction } from './repeated-action.js';

const seq = (keys: string) => [...keys].flatMap((k, i) => bash(`c${i}`, `cat ${k}`, `${k}:${i}`));

describe('alternation', () => {
  it('fires on an edit and its undo, three times each, citing the six calls', () => {
    const events = trajectory('flip-flop.jsonl');
    expect(alternation(events, P, ctx())).toEqual([
      expect.objectContaining({ probe: 'alternation', severity: 'warn', turn: 'a01', evidence: ['a02', 'a04', 'a06', 'a08', 'a10', 'a12'] }),
    ]);
    // The outputs differ per round, so repeated-action (same call, same result) does not see it.
    expect(repeatedAction(events, P, ctx())).toEqual([]);
  });

  it('needs the full length and exactly two calls', () => {
    expect(alternation([ev.start('s'), ...seq('ababa')], P, ctx())).toEqual([]);
    expect(alternation([ev.start('s'), ...seq('abcabcabc')], P, ctx())).toEqual([]);
    expect(alternation([ev.start('s'), ...seq('aabbaabb')], P, ctx())).toEqual([]);
  });

  it('finds the run inside other work and grows to critical', () => {
    const [v] = alternation([ev.start('s'), ...seq('xyzabababz')], P, ctx());
    expect(v!.evidence).toEqual(['c3', 'c4', 'c5', 'c6', 'c7', 'c8']);
    expect(alternation([ev.start('s'), ...seq('abababababab')], P, ctx())[0]).toMatchObject({ severity: 'critical' });
  });

  it('skips pollers in between, and never fires on poll/poll', () => {
    const events = [ev.start('s'), ...[...'ababab'].flatMap((k, i) => [...bash(`c${i}`, `cat ${k}`, k), ...bash(`p${i}`, 'sleep 10', 'empty')])];
    expect(alternation(events, P, ctx())[0]!.evidence).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(alternation(trajectory('ci-pollers.jsonl'), P, ctx())).toEqual([]);
  });
});
