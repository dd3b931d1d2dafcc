import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/helpers/temp-dirs.js';
import { AtomicFile, filesWritten, trackWrite } from './atomic-write.js';

const dir = tempDirs('ns-atomic-');

describe('AtomicFile', () => {
  it('ends with the newest content after many rewrites, 0600, no temporary file left', async () => {
    const path = join(dir(), 'summary.json');
    const f = new AtomicFile(path, (e) => {
      throw e;
    });
    for (let i = 0; i < 50; i++) f.write(`{"n":${i}}\n`);
    await f.flushed();
    expect(readFileSync(path, 'utf8')).toBe('{"n":49}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(path, '..'))).toEqual(['summary.json']);
  });

  it('filesWritten waits for every file under way; a write that fails is reported, not thrown', async () => {
    const d = dir();
    const problems: Error[] = [];
    const a = new AtomicFile(join(d, 'a'), (e) => problems.push(e));
    const b = new AtomicFile(join(d, 'missing', 'b'), (e) => problems.push(e));
    a.write('A');
    b.write('B');
    await filesWritten();
    expect(readFileSync(join(d, 'a'), 'utf8')).toBe('A');
    expect(problems.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['ENOENT']);
  });
});

describe('trackWrite', () => {
  it('filesWritten waits for a tracked write that gathers its data first, and not for one that failed', async () => {
    let release!: () => void;
    const gathered = new Promise<void>((r) => (release = r));
    let written = false;
    void trackWrite(gathered.then(() => (written = true)));
    void trackWrite(Promise.reject(new Error('no disk'))).catch(() => undefined);
    let waited = false;
    const wait = filesWritten().then(() => (waited = true));
    await new Promise((r) => setImmediate(r));
    expect(waited).toBe(false);
    release();
    await wait;
    expect(written).toBe(true);
  });
});
