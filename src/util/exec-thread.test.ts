/** execFileOffThread runs its worker from the build (dist/), which `npm test` makes first. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { execFileOffThread } from './exec-thread.js';

const o = { cwd: tmpdir(), timeoutMs: 10_000, maxBuffer: 1 << 20 };

describe('execFileOffThread', () => {
  it("returns the child's output, many at once, each its own", async () => {
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => execFileOffThread('sh', ['-c', `echo child ${i}; pwd`], o)));
    outs.forEach((out, i) => expect(out).toBe(`child ${i}\n${tmpdir()}\n`));
  });

  it('rejects a failing child, a missing program, a timeout and too much output, naming why', async () => {
    await expect(execFileOffThread('sh', ['-c', 'exit 3'], o)).rejects.toThrow(/Command failed/);
    await expect(execFileOffThread('no-such-program-here', [], o)).rejects.toThrow(/ENOENT/);
    await expect(execFileOffThread('sleep', ['5'], { ...o, timeoutMs: 100 })).rejects.toThrow();
    await expect(execFileOffThread('sh', ['-c', 'head -c 5000 /dev/zero'], { ...o, maxBuffer: 1000 })).rejects.toThrow(/maxBuffer/);
  });

  it('starts the child at the niceness asked for', async () => {
    // Field 19 of /proc/PID/stat is the nice value: the child reads its own.
    const out = await execFileOffThread('sh', ['-c', 'sleep 0.3; cat /proc/$$/stat'], { ...o, niceness: 10 });
    expect(out.slice(out.lastIndexOf(')') + 2).split(' ')[16]).toBe('10');
  });
});
