import { describe, expect, it } from 'vitest';
import { LineDecoder, parseIncoming } from './protocol.js';

describe('LineDecoder', () => {
  it('splits lines across chunks, skips blank ones, keeps UTF-8 split mid-character whole', () => {
    const d = new LineDecoder();
    const bytes = Buffer.from('{"a":"é"}\n\n{"b"');
    expect(d.push(bytes.subarray(0, 8))).toEqual([]);
    expect(d.push(bytes.subarray(8))).toEqual(['{"a":"é"}']);
    expect(d.push(Buffer.from(':1}\n'))).toEqual(['{"b":1}']);
  });

  it('over the cap: an overflow, and nothing more is kept or returned', () => {
    const d = new LineDecoder(10);
    expect(d.push(Buffer.from('12345\n'))).toEqual(['12345']);
    expect(d.push(Buffer.from('1234567890'))).toEqual([]);
    expect(d.overflow).toBe(false);
    expect(d.push(Buffer.from('1\nok\n'))).toEqual([]);
    expect(d.overflow).toBe(true);
    expect(d.push(Buffer.from('later\n'))).toEqual([]);
  });
});

describe('parseIncoming', () => {
  it('echoes a usable id in an error, 0 otherwise; the version is checked before the shape', () => {
    expect(parseIncoming('{"v":1,"id":4,"cmd":7}')).toMatchObject({ ok: false, id: 4 });
    expect(parseIncoming('{"v":1,"id":-1}')).toMatchObject({ ok: false, id: 0 });
    expect(parseIncoming('{"v":2,"id":3,"whatever":true}')).toMatchObject({ ok: false, id: 3, error: { message: expect.stringMatching(/protocol version 2/) } });
    expect(parseIncoming('{"v":1,"id":3,"cmd":"board"}')).toEqual({ ok: true, message: { v: 1, id: 3, cmd: 'board', args: {} } });
  });
});
