import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kernelNice } from '../../test/helpers/thread-nice.js';
import { recordingThread } from './recording-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'ns-recording-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built worker (dist/src/ptyhost/recording-worker.js): npm test builds first. */
describe('the host’s recording thread', () => {
  it('holds the job while it is behind, lets it go once it caught up, and loses nothing', async () => {
    const path = join(dir, 'behind.cast');
    const said: boolean[] = [];
    let caughtUp!: () => void;
    const resumed = new Promise<void>((r) => (caughtUp = r));
    const problems: Error[] = [];
    const rec = recordingThread().create(path, { width: 80, height: 24, command: 'flood' }, Date.now(), Infinity, {
      problem: (e) => problems.push(e),
      behind: (b) => {
        said.push(b);
        if (!b) caughtUp();
      },
    });
    // 48 MB handed over in one go, far faster than the thread escapes and writes it.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 768; i++) rec.output(chunk, Date.now());
    expect(said[0], 'the recording fell behind').toBe(true);
    await Promise.race([resumed, new Promise((_, no) => setTimeout(() => no(new Error(`still held after 20 s; said ${JSON.stringify(said)}`)), 20_000))]);
    await rec.close('exit:0', Date.now());
    // This loop goes on handing output while held (a job's PTY would be paused): when the thread gets the
    // cores first and catches up in the middle of it, the job is let go and held again. Every hold is let go.
    expect(said.length % 2, JSON.stringify(said)).toBe(0);
    expect(said, JSON.stringify(said)).toEqual(said.map((_, i) => i % 2 === 0));
    expect(problems).toEqual([]);
    const [, ...lines] = readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
    const events = lines.map((l) => JSON.parse(l) as [number, string, string]);
    expect(events.filter((e) => e[1] === 'o').reduce((n, e) => n + e[2].length, 0)).toBe(768 * 64 * 1024);
    expect(events.at(-1)).toEqual([expect.any(Number), 'm', 'exit:0']);
  }, 30_000);

  it('goes on recording after a flood: later batches are taken and the file ends whole', async () => {
    const path = join(dir, 'after.cast');
    const rec = recordingThread().create(path, { width: 80, height: 24, command: 'later' }, Date.now(), Infinity, { problem: () => undefined, behind: () => undefined });
    for (let i = 0; i < 5; i++) rec.output(Buffer.from(`line ${i}\r\n`), Date.now());
    await rec.close('exit:3', Date.now());
    const out = readFileSync(path, 'utf8');
    expect(out).toContain('line 4\\r\\n');
    expect(out.trimEnd().endsWith('"exit:3"]')).toBe(true);
  });

  it.runIf(process.platform === 'linux')('runs at nice 19, below the threads the job waits on', async () => {
    const path = join(dir, 'nice.cast');
    const rec = recordingThread().create(path, { width: 80, height: 24, command: 'nice' }, Date.now(), Infinity, { problem: () => {}, behind: () => {} });
    rec.output(Buffer.from('hello\r\n'), Date.now());
    await rec.close('exit:0', Date.now());
    expect(kernelNice(process.pid)).toBeLessThan(19);
    expect(readdirSync('/proc/self/task').filter((t) => kernelNice(t) === 19)).toHaveLength(1);
  });
});
