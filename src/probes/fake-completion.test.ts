import { describe, expect, it } from 'vitest';
import { bash, ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
import { claimOf, fakeCompletion } from './fake-completion.js';

const turn = (final: string, ...work: ReturnType<typeof pair>[]) => [
  ev.start('s'),
  ...work.flat(),
  ev.text('t', final),
  ev.end('e', final),
];
const read = pair('r', 'Read', { file_path: 'a.ts' }, 'a');

describe('fake-completion', () => {
  it('fires on a claimed fix and commit after reads only (TodoWrite is not a write), citing the reply and the turn end', () => {
    const events = trajectory('fake-completion.jsonl');
    for (const gitChanged of [false, null]) {
      expect(fakeCompletion(events, P, ctx({ gitChanged }))).toEqual([
        expect.objectContaining({ probe: 'fake-completion', severity: 'critical', turn: 'k01', evidence: ['k08', 'k09'] }),
      ]);
    }
  });

  it('does not fire when git saw the working tree change during the turn', () => {
    expect(fakeCompletion(trajectory('fake-completion.jsonl'), P, ctx({ gitChanged: true }))).toEqual([]);
  });

  it('fires on Chinese claims (已完成 / 已提交)', () => {
    expect(fakeCompletion(trajectory('fake-completion-zh.jsonl'), P, ctx({ gitChanged: false }))[0]!.evidence).toEqual(['z06', 'z07']);
  });

  it('accepts a successful write or side effect from the tool contract', () => {
    expect(fakeCompletion(trajectory('clean-coding-task.jsonl'), P, ctx())).toEqual([]);
    expect(fakeCompletion(turn('Done. I committed the fix.', read, bash('g', 'git commit -am "fix"', 'commit')), P, ctx())).toEqual([]);
    expect(fakeCompletion(turn('Fixed the typo.', bash('g', "sed -i 's/teh/the/' README.md", 'empty')), P, ctx())).toEqual([]);
    expect(fakeCompletion(turn('已修复。', pair('w', 'replace', { file_path: 'a' }, 'ok')), P, ctx())).toEqual([]);
  });

  it('does not accept a failed write', () => {
    const failed = pair('w', 'Edit', { file_path: 'a.ts' }, 'old_string not found', false);
    expect(fakeCompletion(turn("I've fixed it.", failed), P, ctx())).toHaveLength(1);
  });

  it('ignores replies that claim nothing, negate the claim, or answer a question', () => {
    for (const text of [
      "I haven't fixed it yet: the test still fails.",
      'The bug has been fixed in React 18, so upgrading is enough.',
      'The function returns early when the list is empty.',
      '这个问题尚未修复，需要先升级依赖。',
    ]) {
      expect(fakeCompletion(turn(text, read), P, ctx()), text).toEqual([]);
    }
  });

  it('uses gitChangedByTurn for earlier turns (missing = unknown)', () => {
    const events = [...turn('All done.'), ev.start('s2', 'thanks'), ev.text('t2', 'You are welcome.'), ev.end('e2', 'You are welcome.')];
    expect(fakeCompletion(events, P, ctx({ gitChanged: false }))[0]!.evidence).toEqual(['t', 'e']);
    expect(fakeCompletion(events, P, ctx({ gitChanged: false, gitChangedByTurn: { s: true } }))).toEqual([]);
    // Keyed by the turn-end id, as a caller measuring git at each turn end has it.
    expect(fakeCompletion(events, P, ctx({ gitChanged: false, gitChangedByTurn: { e: true } }))).toEqual([]);
    expect(fakeCompletion(events, P, ctx({ gitChanged: false, gitChangedByTurn: { e: null, s: true } }))).toHaveLength(1);
  });

  it('stays quiet about a cleared turn while the stream grows, when the caller keeps the git facts', () => {
    const first = turn('All done.');
    const later = [...first, ev.start('s2', 'continue'), ...pair('r2', 'Read', { file_path: 'b.ts' }, 'b')];
    expect(fakeCompletion(first, P, ctx({ gitChanged: true }))).toEqual([]);
    expect(fakeCompletion(later, P, ctx({ gitChanged: null, gitChangedByTurn: { e: true } }))).toEqual([]);
    // Without the fact the earlier claim is unknown again and fires: the caller must keep it.
    expect(fakeCompletion(later, P, ctx({ gitChanged: null }))).toHaveLength(1);
  });

  it('recognises the claim shapes', () => {
    const rules = P.rules.claims;
    for (const yes of ['Done!', "I've implemented the retry.", 'We have now created the migration.', 'Changes have been committed.', 'The tests are now passing.', 'Fixed the null check.', '已提交到 main 分支。', '改好了', '搞定']) {
      expect(claimOf(yes, rules), yes).not.toBeNull();
    }
    for (const no of ['Added in version 2.3, this flag…', 'It should be fixed by the next release.', 'I could not create the file.']) {
      expect(claimOf(no, rules), no).toBeNull();
    }
  });

  it('claims a git fact only when git status ran (issue 10.6)', () => {
    const claim = [ev.start('s'), ...pair('r', 'Read', { file_path: 'a.ts' }, 'a'), ev.text('t', 'I fixed the bug.'), ev.end('e', 'I fixed the bug.')];
    expect(fakeCompletion(claim, P, ctx({ gitChanged: false }))[0]!.message).toContain('and git saw no change');
    const outside = fakeCompletion(claim, P, ctx({ gitChanged: null }))[0]!.message;
    expect(outside).not.toContain('git saw');
    expect(outside).toContain('(no git status to check)');
  });
});
