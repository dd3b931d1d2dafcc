import { describe, expect, it } from 'vitest';
import { FRAME, FrameDecoder, jsonFrame, outputHeader, parseJson, parseOutput } from './protocol.js';

/** Escape codes, UTF-8 and a byte that is not UTF-8: output is bytes, passed untouched. */
const DATA = Buffer.concat([Buffer.from('raw \x1b[1mbytes\x1b[0m ✔ '), Buffer.from([0xff])]);

function stream(): Buffer {
  const data = DATA;
  return Buffer.concat([
    jsonFrame(FRAME.hello, { version: 'v', pid: 1 }),
    outputHeader('job-ü', 1234567890123, data.length),
    data,
    jsonFrame(FRAME.request, { rid: 2, op: 'write', args: { id: 'a' } }, Buffer.from([0, 1, 2, 255])),
  ]);
}

function check(frames: { type: number; payload: Buffer }[]): void {
  expect(frames.map((f) => f.type)).toEqual([FRAME.hello, FRAME.output, FRAME.request]);
  expect(parseJson(frames[0]!.payload).body).toEqual({ version: 'v', pid: 1 });
  const o = parseOutput(frames[1]!.payload);
  expect(o).toMatchObject({ jobId: 'job-ü', offset: 1234567890123 });
  expect(o.data.equals(DATA)).toBe(true);
  const r = parseJson(frames[2]!.payload);
  expect(r.body).toEqual({ rid: 2, op: 'write', args: { id: 'a' } });
  expect([...r.tail]).toEqual([0, 1, 2, 255]);
}

/** Frames are good until the next push: what a test keeps, it copies. */
const kept = (frames: { type: number; payload: Buffer }[]) => frames.map((f) => ({ type: f.type, payload: Buffer.from(f.payload) }));

describe('FrameDecoder', () => {
  it('decodes frames from one chunk', () => {
    check(new FrameDecoder().push(stream()));
  });

  it('decodes the same frames however the stream is cut in two or in single bytes', () => {
    const all = stream();
    for (let cut = 1; cut < all.length; cut++) {
      const d = new FrameDecoder();
      check([...kept(d.push(all.subarray(0, cut))), ...kept(d.push(all.subarray(cut)))]);
    }
    const d = new FrameDecoder();
    check([...all].flatMap((b) => kept(d.push(Buffer.from([b])))));
  });

  it('keeps nothing of a chunk after push: a reader may fill the same memory again', () => {
    const all = Buffer.concat([stream(), stream(), stream()]);
    for (const size of [1, 7, 64, 200]) {
      const d = new FrameDecoder();
      const read = Buffer.alloc(size);
      const frames: { type: number; payload: Buffer }[] = [];
      for (let at = 0; at < all.length; at += size) {
        const n = all.copy(read, 0, at, at + size);
        frames.push(...kept(d.push(read.subarray(0, n))));
        read.fill(0xee);
      }
      for (let i = 0; i < 3; i++) check(frames.slice(3 * i, 3 * i + 3));
    }
  });

  it('refuses a frame length outside its bounds, naming it', () => {
    const bad = Buffer.from([0xff, 0xff, 0xff, 0xff, 1]);
    expect(() => new FrameDecoder(1024).push(bad)).toThrow(/frame length 4294967295 is outside 1\.\.1024/);
  });
});
