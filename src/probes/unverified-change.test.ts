import { describe, expect, it } from 'vitest';
import { bash, ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
import { resultsOf } from './steps.js';
import { turnsOf } from './turns.js';
import { checkAfterLastWrite, unverifiedChange, verificationOf } from './unverified-change.js';

const edit = pair('w', 'Edit', { file_path: 'a.ts' }, 'edited');
const turn = (...work: ReturnType<typeof pair>[]) => [ev.start('s'), ...work.flat(), ev.text('t', 'Done.'), ev.end('e', 'Done.')];

describe('unverified-change', () => {
  it('fires when the turn ends right after a write, citing the write and the turn end', () => {
    expect(unverifiedChange(trajectory('unverified-change.jsonl'), P, ctx())).toEqual([
      expect.objectContaining({ probe: 'unverified-change', severity: 'warn', turn: 'v01', evidence: ['v04', 'v05', 'v07'] }),
    ]);
  });

  it('is satisfied by a successful read, test or list after the last write', () => {
    expect(unverifiedChange(turn(edit, pair('r', 'Read', { file_path: 'a.ts' }, 'a')), P, ctx())).toEqual([]);
    expect(unverifiedChange(turn(edit, bash('t', 'npm test', 'pass')), P, ctx())).toEqual([]);
    expect(unverifiedChange(turn(edit, pair('l', 'list_directory', { path: '.' }, 'ls')), P, ctx())).toEqual([]);
    expect(unverifiedChange(trajectory('clean-coding-task.jsonl'), P, ctx())).toEqual([]);
    expect(unverifiedChange(trajectory('edit-test-loop.jsonl'), P, ctx())).toEqual([]);
  });

  it('does not count a failed check, a plan update or a commit as verification', () => {
    expect(unverifiedChange(turn(edit, bash('t', 'npm test', 'fail', false)), P, ctx())).toHaveLength(1);
    expect(unverifiedChange(turn(edit, pair('p', 'TodoWrite', { todos: [] }, 'ok')), P, ctx())).toHaveLength(1);
    expect(unverifiedChange(turn(edit, bash('g', 'git commit -am "x"', 'ok')), P, ctx())).toHaveLength(1);
  });

  it('a commit after a verified change is fine (it is not a file write)', () => {
    expect(unverifiedChange(turn(edit, bash('t', 'npm test', 'pass'), bash('g', 'git commit -am "x"', 'ok')), P, ctx())).toEqual([]);
  });

  it('judges a shell line in order: write then test verifies itself, a write alone does not', () => {
    expect(unverifiedChange(turn(bash('x', "sed -i 's/a/b/' a.ts && npm test", 'pass')), P, ctx())).toEqual([]);
    expect(unverifiedChange(turn(bash('x', "sed -i 's/a/b/' a.ts", 'empty')), P, ctx())[0]!.evidence).toEqual(['x', 'xr', 'e']);
    expect(unverifiedChange(turn(bash('x', "cat a.ts && sed -i 's/a/b/' a.ts", 'empty')), P, ctx())).toHaveLength(1);
  });

  it("catches the issue's claim: the only test after the edit failed, then two reads and \"The fix is complete\"", () => {
    const [v, ...rest] = unverifiedChange(trajectory('claim-after-failed-test.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ severity: 'warn', turn: 'f01', evidence: ['f04', 'f05', 'f07', 'f13'] });
    expect(v!.message).toContain('the last test after the last change failed (FAIL src/cache.test.ts > expires entries)');
  });

  it('once a test failed, only a passing test after the last write verifies it', () => {
    const failing = bash('t', 'npm test', 'fail', false);
    expect(unverifiedChange(turn(failing, edit, pair('r', 'Read', { file_path: 'a.ts' }, 'a')), P, ctx())[0]!.message).toContain(
      'no test passed after the last change, and a test had failed before it',
    );
    expect(unverifiedChange(turn(failing, edit, bash('t2', 'npm test', 'pass')), P, ctx())).toEqual([]);
    expect(unverifiedChange(turn(edit, bash('t1', 'npm test', 'fail', false), bash('t2', 'npm test', 'pass'), pair('r', 'Read', { file_path: 'a.ts' }, 'a')), P, ctx())).toEqual([]);
    // A write-and-test line that fails is a failed test after the last write.
    expect(unverifiedChange(turn(edit, bash('x', "sed -i 's/a/b/' a.ts && npm test", 'fail', false)), P, ctx())).toHaveLength(1);
  });

  it('names its decision in one function the other probes and the reminder share', () => {
    const results = (events: ReturnType<typeof turn>) => resultsOf(turnsOf(events)[0]!, P.rules);
    expect(checkAfterLastWrite(results(turn(pair('r', 'Read', { file_path: 'a.ts' }, 'a'))))).toMatchObject({ state: 'no-write', write: null });
    expect(checkAfterLastWrite(results(turn(edit)))).toMatchObject({ state: 'unchecked', check: null });
    const failed = checkAfterLastWrite(results(turn(edit, bash('t', 'npm test', 'fail', false), pair('r', 'Read', { file_path: 'a.ts' }, 'a'))));
    expect([failed.state, failed.write?.result.id, failed.check?.result.id, failed.testFailed]).toEqual(['failed', 'wr', 'tr', true]);
    expect(checkAfterLastWrite(results(turn(edit, bash('t', 'npm test', 'pass')))).state).toBe('verified');
  });

  it('needs a finished turn and a successful write', () => {
    expect(unverifiedChange([ev.start('s'), ...edit], P, ctx())).toEqual([]);
    expect(unverifiedChange(turn(pair('w', 'Edit', { file_path: 'a.ts' }, 'no match', false)), P, ctx())).toEqual([]);
  });
});

describe('verificationOf: what the job as a whole verified (issue 10.6)', () => {
  it('is verified only when changes were made and checked', () => {
    expect(verificationOf(turn(edit, pair('r', 'Read', { file_path: 'a.ts' }, 'a')), P)).toBe('verified');
    expect(verificationOf(turn(edit), P)).toBe('unverified');
  });
  it('a change whose last test failed is unverified, whatever was read after it', () => {
    expect(verificationOf(trajectory('claim-after-failed-test.jsonl'), P)).toBe('unverified');
  });
  it('a loop that changed nothing verified nothing', () => {
    const loop = Array.from({ length: 5 }, (_, i) => bash(`l${i}`, 'ls -la', 'same listing'));
    expect(verificationOf(turn(...loop), P)).toBe('nothing-changed');
  });
});
