import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { rng } from '../../test/helpers/rng.js';
import { SharedRing } from './shared-ring.js';

describe('SharedRing', () => {
  it('gives back what was written, in order, across its end, never more than its room', () => {
    const ring = new SharedRing(SharedRing.memory(64));
    const next = rng(5);
    const sent: number[] = [];
    const got: number[] = [];
    let counter = 0;
    for (let round = 0; round < 2000; round++) {
      const chunk = Uint8Array.from({ length: Math.floor(next() * 40) }, () => counter++ & 0xff);
      const room = ring.room;
      const n = ring.write(chunk);
      expect(n).toBe(Math.min(chunk.length, room));
      sent.push(...chunk.subarray(0, n));
      counter -= chunk.length - n;
      expect(ring.available + ring.room).toBe(64);
      if (next() < 0.5) got.push(...(ring.read() ?? []));
    }
    got.push(...(ring.read() ?? []));
    expect(got).toEqual(sent);
    expect(ring.read()).toBeUndefined();
  });

  it('keeps its positions right when their counts wrap past 2^32', () => {
    const memory = SharedRing.memory(16);
    const control = new Int32Array(memory.control);
    control[0] = control[1] = -5;
    const ring = new SharedRing(memory);
    expect(ring.write(Buffer.from('abcdefghij'))).toBe(10);
    expect(ring.available).toBe(10);
    expect(ring.read()?.toString()).toBe('abcdefghij');
    expect(ring.write(Buffer.from('0123456789abcdefXYZ'))).toBe(16);
    expect(ring.read()?.toString()).toBe('0123456789abcdef');
  });

  it('wakes a sleeping reader once, and a reader that finds bytes as it goes to sleep stays awake', () => {
    const ring = new SharedRing(SharedRing.memory(16));
    // A new ring's reader sleeps: the first write wakes it, the next do not.
    ring.write(Buffer.from('a'));
    expect(ring.wakeNeeded()).toBe(true);
    ring.write(Buffer.from('b'));
    expect(ring.wakeNeeded()).toBe(false);
    expect(ring.sleep()).toBe(false);
    expect(ring.wakeNeeded()).toBe(false);
    ring.read();
    expect(ring.sleep()).toBe(true);
    ring.write(Buffer.from('c'));
    expect(ring.wakeNeeded()).toBe(true);
  });

  it('refuses a size that is not a power of two up to 1 GiB', () => {
    for (const bad of [0, 3, 100, 2 ** 31, 1.5]) expect(() => SharedRing.memory(bad)).toThrow(RangeError);
  });

  it('carries 64 MB from a worker thread to this one, every byte in order, the writer waiting on a full ring', async () => {
    const memory = SharedRing.memory(1 << 16);
    const total = 64 * 1024 * 1024;
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       const data = new Uint8Array(workerData.data), control = new Int32Array(workerData.control);
       const size = data.length; let written = 0;
       while (written < ${total}) {
         const room = size - ((Atomics.load(control, 0) - Atomics.load(control, 1)) >>> 0);
         if (room === 0) continue;
         const w = Atomics.load(control, 0), n = Math.min(room, 4093, ${total} - written);
         for (let i = 0; i < n; i++) data[((w >>> 0) + i) % size] = (written + i) * 7 & 0xff;
         Atomics.store(control, 0, (w + n) | 0);
         written += n;
       }`,
      { eval: true, workerData: memory },
    );
    const ring = new SharedRing(memory);
    let got = 0;
    let wrong = -1;
    while (got < total) {
      const data = ring.read();
      if (!data) {
        await new Promise((r) => setImmediate(r));
        continue;
      }
      for (let i = 0; i < data.length && wrong < 0; i++) if (data[i] !== (((got + i) * 7) & 0xff)) wrong = got + i;
      got += data.length;
    }
    await worker.terminate();
    expect(wrong).toBe(-1);
    expect(got).toBe(total);
  });
});
