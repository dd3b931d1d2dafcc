import { describe, expect, it } from 'vitest';
import { OutputRing } from './ring.js';

const joined = (r: OutputRing, since?: number) => {
  const { from, chunks } = r.since(since);
  return { from, text: Buffer.concat(chunks).toString() };
};

describe('OutputRing', () => {
  it('keeps everything under its capacity, addressed from offset 0', () => {
    const r = new OutputRing(100);
    r.push(Buffer.from('hello '));
    r.push(Buffer.from('world'));
    expect(r.end).toBe(11);
    expect(joined(r)).toEqual({ from: 0, text: 'hello world' });
    expect(joined(r, 6)).toEqual({ from: 6, text: 'world' });
    expect(joined(r, 8)).toEqual({ from: 8, text: 'rld' });
    expect(joined(r, 11)).toEqual({ from: 11, text: '' });
    expect(joined(r, 99)).toEqual({ from: 11, text: '' });
  });

  it('drops the oldest whole chunks past its capacity and says where what it has starts', () => {
    const r = new OutputRing(8);
    for (const s of ['abcd', 'efgh', 'ijkl']) r.push(Buffer.from(s));
    expect(r.start).toBe(4);
    expect(joined(r)).toEqual({ from: 4, text: 'efghijkl' });
    // Up to one chunk over the capacity, rather than a copy to cut one.
    r.push(Buffer.from('mn'));
    expect(joined(r, 0)).toEqual({ from: 4, text: 'efghijklmn' });
    expect(joined(r, 9)).toEqual({ from: 9, text: 'jklmn' });
    r.push(Buffer.from('op'));
    expect(joined(r, 0)).toEqual({ from: 8, text: 'ijklmnop' });
  });

  it('keeps its newest chunk even when it alone is larger than the capacity', () => {
    const r = new OutputRing(4);
    r.push(Buffer.from('abc'));
    r.push(Buffer.from('0123456789'));
    expect(joined(r)).toEqual({ from: 3, text: '0123456789' });
  });
});
