import { describe, expect, it } from 'vitest';
import { errorKey } from './error-key.js';

describe('errorKey', () => {
  it.each([
    ['cat: does-not-exist-3.txt: No such file or directory', 'cat: does-not-exist-4.txt: No such file or directory'],
    ["ENOENT: no such file or directory, open '/tmp/a/x-17.json'", "ENOENT: no such file or directory, open '/home/u/y.json'"],
    ['Error: Cannot find module ./lib/util-3', 'Error: Cannot find module ../src/other'],
    ['request 3f2a9c1d7e failed (id 123e4567-e89b-12d3-a456-426614174000)', 'request 9a8b7c6d5e failed (id 00000000-0000-0000-0000-000000000000)'],
    ['Exit code 1: ls: cannot access missing-7: No such file', 'Exit code 2: ls: cannot access missing-8: No such file'],
  ])('%j repeats as %j', (a, b) => {
    expect(errorKey(a)).toBe(errorKey(b));
  });

  it.each([
    ["ModuleNotFoundError: No module named 'yaml'", 'ModuleNotFoundError: cannot import name'],
    ['FAIL src/a.test.ts > adds numbers', 'FAIL src/a.test.ts > subtracts'],
    ['Exit code 1: permission denied', 'Exit code 1: no such file'],
  ])('%j differs from %j', (a, b) => {
    expect(errorKey(a)).not.toBe(errorKey(b));
  });
});
