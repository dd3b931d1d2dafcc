import { describe, expect, it } from 'vitest';
import { RecordingRing } from './recording-ring.js';

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);
const at = (ring: RecordingRing, where: number, len: number) => Buffer.from(new Uint8Array(ring.memory, where, len));

describe('RecordingRing', () => {
  it('puts batches one after another and frees them oldest first', () => {
    const ring = new RecordingRing(100);
    expect(ring.put([bytes(30, 1), bytes(10, 2)], 40)).toBe(0);
    expect(ring.put([bytes(40, 3)], 40)).toBe(40);
    expect(at(ring, 0, 40)).toEqual(Buffer.concat([bytes(30, 1), bytes(10, 2)]));
    // 20 left at the end, none at the start: no room for 30 until the oldest is taken.
    expect(ring.put([bytes(30, 4)], 30)).toBe(-1);
    ring.free();
    expect(ring.put([bytes(30, 4)], 30)).toBe(0);
    expect(at(ring, 40, 40)).toEqual(bytes(40, 3));
  });

  it('never writes over a batch the worker has not taken', () => {
    const ring = new RecordingRing(64);
    const live = new Map<number, Buffer>();
    const order: number[] = [];
    for (let i = 0; i < 500; i++) {
      const len = 1 + ((i * 7) % 23);
      const where = ring.put([bytes(len, i % 251)], len);
      if (where < 0) {
        ring.free();
        live.delete(order.shift()!);
        continue;
      }
      live.set(where, bytes(len, i % 251));
      order.push(where);
      for (const [w, b] of live) expect(at(ring, w, b.length)).toEqual(b);
      if (i % 3 === 0) {
        ring.free();
        live.delete(order.shift()!);
      }
    }
  });

  it('wraps a batch that ends at the very end to the start', () => {
    const ring = new RecordingRing(32);
    expect(ring.put([bytes(32, 1)], 32)).toBe(0);
    ring.free();
    expect(ring.put([bytes(8, 2)], 8)).toBe(0);
  });
});
