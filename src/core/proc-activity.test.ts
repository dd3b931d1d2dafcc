import { describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { ProcActivity, type TreeSample } from './proc-activity.js';

const s = (t: number, cpuTicks: number, pids: number[] = [1, 2], ioBytes = 0): TreeSample => ({ t, cpuTicks, ioBytes, pids });

describe('ProcActivity', () => {
  it('treats the first sample as a baseline', () => {
    expect(new ProcActivity().observe(s(0, 500))).toEqual({ busy: false, changed: false });
  });

  it('is busy while CPU grows and idle once it stops', () => {
    const a = new ProcActivity();
    a.observe(s(0, 0));
    expect(a.observe(s(1000, 50))).toEqual({ busy: true, changed: true });
    expect(a.observe(s(2000, 100))).toEqual({ busy: true, changed: false });
    // The 50 ticks of the last second still fill the 2 s window.
    expect(a.observe(s(3000, 100)).busy).toBe(true);
    expect(a.observe(s(4000, 100))).toEqual({ busy: false, changed: true });
    expect(a.observe(s(5000, 100))).toEqual({ busy: false, changed: false });
  });

  it('stays idle on a trickle below the threshold and flips at it', () => {
    // 5% of one core over 2 s at 100 ticks/s is 10 ticks.
    const below = new ProcActivity();
    below.observe(s(0, 0));
    below.observe(s(1000, 4));
    expect(below.observe(s(2000, 9)).busy).toBe(false);
    const at = new ProcActivity();
    at.observe(s(0, 0));
    at.observe(s(1000, 5));
    expect(at.observe(s(2000, 10)).busy).toBe(true);
  });

  it('does not count a drop from an exiting child as activity', () => {
    const a = new ProcActivity();
    a.observe(s(0, 1000, [1, 2, 3]));
    a.observe(s(1000, 1000, [1, 2, 3]));
    expect(a.observe(s(2000, 200, [1, 2])).busy).toBe(false);
    // Work after the drop is measured from the lower sum.
    expect(a.observe(s(3000, 230, [1, 2])).busy).toBe(true);
  });

  it('counts a new process as activity for one window', () => {
    const a = new ProcActivity();
    a.observe(s(0, 0, [1]));
    expect(a.observe(s(1000, 0, [1, 7])).busy).toBe(true);
    expect(a.observe(s(2000, 0, [1, 7])).busy).toBe(true);
    expect(a.observe(s(3000, 0, [1, 7])).busy).toBe(false);
    expect(a.observe(s(4000, 0, [1])).busy).toBe(false);
  });

  it("does not count the disk reads of the root's exec: loading the job's program is not work", () => {
    // Seen live under load: the first reading landed between node-pty's fork and
    // the exec of `sleep 60`, and the exec then read 8 KiB from disk.
    const a = new ProcActivity();
    a.observe({ ...s(0, 0, [1], 0), root: 'node' });
    expect(a.observe({ ...s(1000, 1, [1], 8192), root: 'sleep' })).toEqual({ busy: false, changed: false });
    expect(a.observe({ ...s(2000, 1, [1], 8192), root: 'sleep' }).busy).toBe(false);
    // After the exec, disk reads count again.
    expect(a.observe({ ...s(3000, 1, [1], 16_384), root: 'sleep' }).busy).toBe(true);
    // The same growth without a change of name is work.
    const b = new ProcActivity();
    b.observe({ ...s(0, 0, [1], 0), root: 'sleep' });
    expect(b.observe({ ...s(1000, 1, [1], 8192), root: 'sleep' }).busy).toBe(true);
  });

  it("counts the CPU of the root's first second: a program that computes at once is busy at the first reading after its exec", () => {
    // Discarding the whole step (a new baseline at the exec) left a 5 s busy loop idle for its first second,
    // and with a 2 s tool gap on a loaded machine it was called hung (CI).
    const a = new ProcActivity();
    a.observe({ ...s(0, 0, [1], 0), root: 'node' });
    expect(a.observe({ ...s(1000, 95, [1], 8192), root: 'python3' })).toEqual({ busy: true, changed: true });
  });

  it('counts storage I/O growth, not its drop', () => {
    const a = new ProcActivity();
    a.observe(s(0, 0, [1], 4096));
    expect(a.observe(s(1000, 0, [1], 8192)).busy).toBe(true);
    const b = new ProcActivity();
    b.observe(s(0, 0, [1, 2], 8192));
    expect(b.observe(s(1000, 0, [1], 4096)).busy).toBe(false);
  });

  it('judges a sample gap longer than the window by the last step alone', () => {
    const a = new ProcActivity();
    a.observe(s(0, 0));
    expect(a.observe(s(10_000, 40)).busy).toBe(false);
    expect(a.observe(s(20_000, 100)).busy).toBe(true);
  });

  it('never calls zero growth busy, even with a zero threshold', () => {
    const a = new ProcActivity({ busyCpuFraction: 0 });
    a.observe(s(0, 5));
    expect(a.observe(s(0, 5)).busy).toBe(false);
    expect(a.observe(s(1000, 5)).busy).toBe(false);
    expect(a.observe(s(2000, 6)).busy).toBe(true);
  });

  it('honours custom options and rejects bad ones', () => {
    const a = new ProcActivity({ busyCpuFraction: 0.5, ticksPerSecond: 1000, windowMs: 1000 });
    a.observe(s(0, 0));
    expect(a.observe(s(1000, 499)).busy).toBe(false);
    expect(a.observe(s(2000, 1000)).busy).toBe(true);
    expect(() => new ProcActivity({ busyCpuFraction: -1 })).toThrow(InputError);
    expect(() => new ProcActivity({ windowMs: 0 })).toThrow(/windowMs 0 is invalid/);
    expect(() => new ProcActivity({ ticksPerSecond: Number.NaN })).toThrow(InputError);
  });
});
