import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { kernelNice } from '../../test/helpers/thread-nice.js';
import { threadId } from './thread-nice.js';
import { workerUrl } from './worker-url.js';

/**
 * Runs niceThisThread(nice) on a fresh worker thread (the module from the
 * build, which `npm test` makes first) and reports its thread id and the
 * result; the thread stays until `end` so the kernel still has its stat.
 */
async function inWorker(nice: number): Promise<{ tid: number; result: number | undefined; end: () => Promise<number> }> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(workerUrl('util/thread-nice.js').href)}).then((m) => {
      const result = m.niceThisThread(${nice});
      parentPort.postMessage({ tid: m.threadId(), result: result ?? null });
      setInterval(() => {}, 1000);
    });`;
  const w = new Worker(code, { eval: true });
  const m = await new Promise<{ tid: number; result: number | null }>((resolve, reject) => {
    w.once('error', reject);
    w.once('message', resolve);
  });
  return { tid: m.tid, result: m.result ?? undefined, end: () => w.terminate() };
}

describe.runIf(process.platform === 'linux')('niceThisThread', () => {
  it('lowers the calling thread only, as the kernel reports it', async () => {
    const main = threadId()!;
    expect(main).toBe(process.pid);
    const before = kernelNice(main);
    const want = Math.min(19, before + 7);
    const w = await inWorker(want);
    try {
      expect(w.tid).not.toBe(main);
      expect(w.result).toBe(want);
      expect(kernelNice(w.tid)).toBe(want);
      expect(kernelNice(main)).toBe(before);
    } finally {
      await w.end();
    }
  });

  it('never raises a thread that is already lower', async () => {
    const w = await inWorker(19);
    const again = await inWorker(-5);
    try {
      expect(again.result).toBe(kernelNice(process.pid));
      expect(kernelNice(w.tid)).toBe(19);
    } finally {
      await Promise.all([w.end(), again.end()]);
    }
  });
});
