import { describe, expect, it } from 'vitest';
import { ByteBuffer } from './byte-buffer.js';

describe('ByteBuffer', () => {
  it('appends, grows and keeps what it held', () => {
    const b = new ByteBuffer();
    const parts = Array.from({ length: 100 }, (_, i) => Buffer.from(`part ${i};`.repeat(50)));
    for (const p of parts) b.append(p);
    expect(b.view().equals(Buffer.concat(parts))).toBe(true);
  });

  it('fills the same memory again after clear(), and lets go of it after release() or once grown past 2 MiB', () => {
    const b = new ByteBuffer();
    b.append(Buffer.from('abc'));
    const first = b.view();
    b.clear();
    b.append(Buffer.from('xyz'));
    expect(b.view().buffer).toBe(first.buffer);
    expect(first.toString()).toBe('xyz');
    b.release();
    expect(b.length).toBe(0);
    b.append(Buffer.from('new'));
    expect(b.view().buffer).not.toBe(first.buffer);
    const big = new ByteBuffer();
    big.append(Buffer.alloc(3 * 1024 * 1024));
    const bigMemory = big.view().buffer;
    big.clear();
    big.append(Buffer.from('small'));
    expect(big.view().buffer).not.toBe(bigMemory);
  });
});
