import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectCheckIn } from '../supervisor/project-files.js';
import { projectCheck } from './project-check.js';

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'x', scripts });

describe('the project\'s own check', () => {
  it.each([
    [{ 'package.json': pkg({ test: 'vitest run', lint: 'eslint .', typecheck: 'tsc' }) }, 'npm test'],
    [{ 'package.json': pkg({ lint: 'eslint .', typecheck: 'tsc --noEmit' }) }, 'npm run typecheck'],
    [{ 'package.json': pkg({ check: 'biome check', lint: 'eslint .' }) }, 'npm run check'],
    [{ 'package.json': pkg({ lint: 'eslint .' }) }, 'npm run lint'],
    // npm init's placeholder is no test; the Makefile's target is.
    [{ 'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1' }), Makefile: 'build:\n\tcc x.c\ntest: build\n\t./x --test\n' }, 'make test'],
    [{ Makefile: 'check:\n\t./run-checks\n' }, 'make check'],
    [{ Makefile: 'TEST := 1\ntest := 2\nall:\n\techo\n' }, null],
    [{ 'Cargo.toml': '[package]\nname = "x"\n' }, 'cargo test'],
    [{ 'go.mod': 'module x\n' }, 'go test ./...'],
    [{ 'pyproject.toml': '[project]\nname = "x"\n' }, 'pytest'],
    [{ 'tox.ini': '[tox]\n' }, 'pytest'],
    [{ 'package.json': '{ not json' }, null],
    [{}, null],
  ])('%j → %s', (files, check) => {
    expect(projectCheck(files)).toBe(check);
  });

  it('is read from the project\'s folder, a missing file as absent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ns-check-'));
    expect(await projectCheckIn(dir)).toBeNull();
    writeFileSync(join(dir, 'go.mod'), 'module x\n');
    expect(await projectCheckIn(dir)).toBe('go test ./...');
    writeFileSync(join(dir, 'package.json'), pkg({ test: 'node t.js' }));
    expect(await projectCheckIn(dir)).toBe('npm test');
  });
});
