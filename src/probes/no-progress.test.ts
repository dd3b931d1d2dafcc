import { describe, expect, it } from 'vitest';
import { bash, config, ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
import { noProgress } from './no-progress.js';

const looks = (prefix: string, n: number, fps = ['a', 'b']) =>
  Array.from({ length: n }, (_, i) => bash(`${prefix}${i}`, `cat file${i % fps.length} # ${prefix}${i}`, fps[i % fps.length]!)).flat();

describe('no-progress', () => {
  it('fires after 8 results with nothing new, citing those results', () => {
    const [v, ...rest] = noProgress(trajectory('no-progress.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ severity: 'warn', turn: 'n01' });
    expect(v!.evidence).toEqual(['n09', 'n11', 'n13', 'n15', 'n17', 'n19', 'n21', 'n23', 'n25']);
  });

  it('is quiet at 7 and critical at twice the threshold', () => {
    expect(noProgress([ev.start('s'), ...looks('x', 2 + 7)], P, ctx())).toEqual([]);
    expect(noProgress([ev.start('s'), ...looks('x', 2 + 16)], P, ctx())[0]).toMatchObject({ severity: 'critical' });
  });

  it('uses the profile: the quick profile speaks after 4', () => {
    expect(noProgress([ev.start('s'), ...looks('x', 2 + 4)], config.profile('quick'), ctx())).toHaveLength(1);
  });

  it('counts a successful write as progress', () => {
    const edit = pair('w', 'Edit', { file_path: 'a' }, 'a');
    expect(noProgress([ev.start('s'), ...looks('x', 6), ...edit, ...looks('y', 6)], P, ctx())).toEqual([]);
  });

  it('counts a test whose output changed as progress, even back to an output seen before', () => {
    const tests = ['t:1-failed', 't:2-failed'].flatMap((fp, i) => bash(`t${i}`, 'npm test', fp));
    const again = Array.from({ length: 10 }, (_, i) => bash(`u${i}`, 'npm test', i % 2 ? 't:2-failed' : 't:1-failed')).flat();
    expect(noProgress([ev.start('s'), ...tests, ...again], P, ctx())).toEqual([]);
  });

  it('skips pollers: waiting on CI is not a stall', () => {
    expect(noProgress(trajectory('ci-pollers.jsonl'), P, ctx())).toEqual([]);
  });

  it('judges each turn afresh', () => {
    const events = [ev.start('s1'), ...looks('x', 6), ev.end('e1'), ev.start('s2'), ...looks('y', 6)];
    expect(noProgress(events, P, ctx())).toEqual([]);
  });

  it('does not fire on a normal task', () => {
    for (const f of ['clean-coding-task.jsonl', 'edit-test-loop.jsonl', 'long-migration.jsonl']) {
      expect(noProgress(trajectory(f), P, ctx()), f).toEqual([]);
    }
  });

  it('a failure on yet another file is nothing new: the masked error counts, not the raw text (issue 10.3)', () => {
    const files = Array.from({ length: 10 }, (_, i) => [
      ev.call(`c${i}`, 'Bash', { command: `cat missing-${i}.txt` }),
      ev.fail(`c${i}r`, `c${i}`, 'Bash', `Exit code 1: cat: missing-${i}.txt: No such file or directory`, `err:missing-${i}`),
    ]).flat();
    const [v] = noProgress([ev.start('s'), ...files], P, ctx());
    expect(v?.evidence).toEqual(['c1r', 'c2r', 'c3r', 'c4r', 'c5r', 'c6r', 'c7r', 'c8r', 'c9r']);
  });

  it('must not fire on a fix-test loop whose failures change', () => {
    expect(noProgress(trajectory('fix-test-changing-failures.jsonl'), P, ctx())).toEqual([]);
  });
});
