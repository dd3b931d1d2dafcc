import { describe, expect, it } from 'vitest';
import { OutputFan, Utf8Stream, type OutputChunk } from './utf8-stream.js';

const bytes = (s: string) => Buffer.from(s);

describe('Utf8Stream', () => {
  it('decodes a character split across chunks when both are read in order', () => {
    const all = bytes('a☃b🙂c');
    const s = new Utf8Stream();
    const chunks = [all.subarray(0, 2), all.subarray(2, 6), all.subarray(6)].map((b) => s.chunk(b));
    expect(chunks.map((c) => c.text()).join('')).toBe('a☃b🙂c');
  });

  it('memoises: a chunk read twice decodes once and gives the same text', () => {
    const s = new Utf8Stream();
    const all = bytes('☃☃');
    const a = s.chunk(all.subarray(0, 4));
    const b = s.chunk(all.subarray(4));
    expect(a.text()).toBe('☃');
    expect(a.text()).toBe('☃');
    expect(b.text()).toBe('☃');
  });

  it('after chunks nobody read, gives the next one whole: a character begun in the last of them included, nothing before it', () => {
    const all = bytes('a☃x☃yz');
    const s = new Utf8Stream();
    s.chunk(all.subarray(0, 3)); // 'a' and two bytes of a snowman, never read
    const read = Buffer.from(all.subarray(3, 6)); // the snowman's last byte, 'x', the next snowman's first byte, never read
    s.chunk(read);
    read.fill(0); // a view of a buffer read into again: the stream kept what it needs
    expect(s.chunk(all.subarray(6)).text()).toBe('☃yz');
  });

  it('decodes a chunk read out of order on its own, leaving out the rest of a character begun before it', () => {
    const all = bytes('x☃yz');
    const s = new Utf8Stream();
    const first = s.chunk(all.subarray(0, 2));
    const second = s.chunk(all.subarray(2));
    expect(second.text()).toBe('☃yz');
    expect(first.text()).toBe('x');
  });

  it('end(): a character cut off by the end comes out as U+FFFD, only if the last chunk was read', () => {
    const s = new Utf8Stream();
    expect(s.chunk(bytes('☃').subarray(0, 2)).text()).toBe('');
    expect(s.end()).toBe('\ufffd');
    const t = new Utf8Stream();
    t.chunk(bytes('☃').subarray(0, 2));
    expect(t.end()).toBe('');
  });
});

describe('OutputFan', () => {
  it('before(): output that came before its listeners continues into the first chunk they hear', () => {
    const fan = new OutputFan();
    const text: string[] = [];
    fan.onText((t) => text.push(t));
    const all = bytes('old ☃ok');
    fan.before(all.subarray(0, 5));
    fan.push(all.subarray(5));
    expect(text.join('')).toBe('☃ok');
  });

  it('gives chunks to chunk listeners and decodes only while a text listener listens', () => {
    const fan = new OutputFan();
    const got: Buffer[] = [];
    const text: string[] = [];
    fan.onOutput((c) => got.push(Buffer.from(c.bytes)));
    fan.push(bytes('one ☃'));
    const sub = fan.onText((t) => text.push(t));
    const two = bytes('two ☃');
    fan.push(two.subarray(0, 5));
    fan.push(two.subarray(5));
    sub.dispose();
    fan.push(bytes('three'));
    fan.end();
    expect(Buffer.concat(got).toString()).toBe('one ☃two ☃three');
    expect(text.join('')).toBe('two ☃');
  });

  it('hands a character cut off by the end to both kinds of listener, to chunk listeners as a chunk of no bytes', () => {
    const fan = new OutputFan();
    const chunks: OutputChunk[] = [];
    const text: string[] = [];
    fan.onOutput((c) => chunks.push(c));
    fan.onText((t) => text.push(t));
    const snow = bytes('a ☃');
    fan.push(snow.subarray(0, snow.length - 1));
    fan.end();
    expect(chunks.map((c) => c.text())).toEqual(['a ', '\ufffd']);
    expect(chunks[1]!.bytes.length).toBe(0);
    expect(text).toEqual(['a ', '\ufffd']);
  });
});
