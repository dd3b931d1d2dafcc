import { describe, expect, it } from 'vitest';
import { bash, ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
import { unverifiedChange, verificationOf } from './unverified-change.js';

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
  it('a loop that changed nothing verified nothing', () => {
    const loop = Array.from({ length: 5 }, (_, i) => bash(`l${i}`, 'ls -la', 'same listing'));
    expect(verificationOf(turn(...loop), P)).toBe('nothing-changed');
  });
});
