import { describe, expect, it } from 'vitest';
import { ctx, defaultProfile as P, ev, trajectory } from '../../test/fixtures/trajectories/load.js';
import { repeatedFailure } from './repeated-failure.js';

const failing = (id: string, cmd: string, head = 'Exit code 1: ENOENT: no such file') => [
  ev.call(id, 'Bash', { command: cmd }),
  ev.fail(`${id}r`, id, 'Bash', head),
];

describe('repeated-failure', () => {
  it('fires on one error head from different commands, citing the failed results; the 4th is critical', () => {
    const [v, ...rest] = repeatedFailure(trajectory('failure-loop.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ severity: 'critical', turn: 'f01', evidence: ['f03', 'f07', 'f09', 'f11'] });
    expect(v!.message).toContain("No module named 'yaml'");
  });

  it('warns at the 3rd failure in a row', () => {
    const events = [ev.start('s'), ...failing('a', 'cat x'), ...failing('b', 'cat ./x'), ...failing('c', 'cat x.txt')];
    expect(repeatedFailure(events, P, ctx())).toEqual([expect.objectContaining({ severity: 'warn', evidence: ['ar', 'br', 'cr'] })]);
  });

  it('is reset by a successful write: edit → same npm test failure ×3 is the normal fix loop', () => {
    expect(repeatedFailure(trajectory('edit-test-loop.jsonl'), P, ctx())).toEqual([]);
  });

  it('is reset by a success of the same tool, not by another tool reading', () => {
    const reset = [ev.start('s'), ...failing('a', 'x'), ...failing('b', 'x'), ev.call('ok', 'Bash', { command: 'ls' }), ev.ok('okr', 'ok', 'Bash', 'ls'), ...failing('c', 'x')];
    expect(repeatedFailure(reset, P, ctx())).toEqual([]);
    const reads = [ev.start('s'), ...failing('a', 'x'), ev.call('r', 'Read', { file_path: 'x' }), ev.ok('rr', 'r', 'Read', 'x'), ...failing('b', 'x'), ...failing('c', 'x')];
    expect(repeatedFailure(reads, P, ctx()).map((v) => v.evidence)).toEqual([['ar', 'br', 'cr']]);
  });

  it('starts over when the error changes, and keeps tools apart', () => {
    const changed = [ev.start('s'), ...failing('a', 'x'), ...failing('b', 'x', 'Exit code 2: other'), ...failing('c', 'x'), ...failing('d', 'x')];
    expect(repeatedFailure(changed, P, ctx())).toEqual([]);
    const head = 'ENOENT: no such file';
    const mixed = [ev.start('s'), ev.call('a', 'Read', {}), ev.fail('ar', 'a', 'Read', head), ...failing('b', 'x', head), ev.call('c', 'Read', {}), ev.fail('cr', 'c', 'Read', head)];
    expect(repeatedFailure(mixed, P, ctx())).toEqual([]);
  });

  it('restarts with a new turn', () => {
    const events = [ev.start('s1'), ...failing('a', 'x'), ...failing('b', 'x'), ev.end('e1', 'It fails.'), ev.start('s2', 'try again'), ...failing('c', 'x')];
    expect(repeatedFailure(events, P, ctx())).toEqual([]);
  });

  it('fires on the same error over changing file names: the error head is masked (issue 10.3)', () => {
    const [v, ...rest] = repeatedFailure(trajectory('error-loop-files.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ severity: 'critical', turn: 'e01' });
    expect(v!.evidence).toEqual(['e03', 'e05', 'e07', 'e09', 'e11', 'e13']);
    expect(v!.message).toContain('does-not-exist-8.txt');
  });

  it('must not fire on a fix-test loop whose failures change: other failing tests, a falling count', () => {
    expect(repeatedFailure(trajectory('fix-test-changing-failures.jsonl'), P, ctx())).toEqual([]);
  });
});
