import { describe, expect, it } from 'vitest';
import { rng } from '../../test/helpers/rng.js';
import { JsonUtf8Escaper, maxEscapedBytes } from './json-bytes.js';

/** Bytes a terminal might print, weighted to the hard cases: controls, quotes, every UTF-8 length, and broken sequences. */
function terminalBytes(next: () => number, n: number): Uint8Array {
  const pieces = ['\x1b[1;31m', '"', '\\', '\r\n', '\x7f', '\t', 'é', '€', '😀', '中', 'e\u0301', '\u2028', '\uFEFF'];
  const out: number[] = [];
  while (out.length < n) {
    const r = next();
    if (r < 0.35) out.push(...Buffer.from(pieces[Math.floor(next() * pieces.length)]!));
    else if (r < 0.6) out.push(Math.floor(next() * 256));
    else if (r < 0.7) out.push([0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff, 0x80, 0xbf][Math.floor(next() * 10)]!);
    else out.push(0x20 + Math.floor(next() * 0x5f));
  }
  return Uint8Array.from(out.slice(0, n));
}

/** What the escaper must give for each chunk: the JSON string body of the streaming decode. */
function expected(chunks: Uint8Array[]): string[] {
  // A BOM is text a program printed: kept, as the recording's StringDecoder kept it.
  const d = new TextDecoder('utf-8', { ignoreBOM: true });
  const bodies = chunks.map((c) => JSON.stringify(d.decode(c, { stream: true })).slice(1, -1));
  bodies.push(JSON.stringify(d.decode()).slice(1, -1));
  return bodies;
}

function escaped(chunks: Uint8Array[]): string[] {
  const e = new JsonUtf8Escaper();
  const out = Buffer.alloc(maxEscapedBytes(Math.max(0, ...chunks.map((c) => c.length))));
  const bodies = chunks.map((c) => out.toString('utf8', 0, e.write(c, out, 0)));
  bodies.push(out.toString('utf8', 0, e.end(out, 0)));
  return bodies;
}

describe('JsonUtf8Escaper', () => {
  it('gives what JSON.stringify of the decoded text gives, byte for byte, for every byte value alone', () => {
    for (let b = 0; b < 256; b++) expect(escaped([Uint8Array.of(b)]), `byte ${b}`).toEqual(expected([Uint8Array.of(b)]));
  });

  it('matches JSON.stringify(TextDecoder) on random terminal bytes split at every boundary', () => {
    const next = rng(37);
    for (let round = 0; round < 60; round++) {
      const bytes = terminalBytes(next, 1 + Math.floor(next() * 40));
      expect(escaped([bytes])).toEqual(expected([bytes]));
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];
        expect(escaped(chunks), `${Buffer.from(bytes).toString('hex')} cut at ${cut}`).toEqual(expected(chunks));
      }
    }
  });

  it('matches on random bytes cut into many small chunks (a character split over three chunks)', () => {
    const next = rng(2026);
    for (let round = 0; round < 200; round++) {
      const bytes = terminalBytes(next, 200);
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; ) {
        const len = Math.floor(next() * 4);
        chunks.push(bytes.subarray(at, at + len));
        at += len;
      }
      expect(escaped(chunks), Buffer.from(bytes).toString('hex')).toEqual(expected(chunks));
    }
  });

  it('yields valid JSON that parses back to the decoded text', () => {
    const bytes = terminalBytes(rng(7), 5000);
    const body = escaped([bytes]).join('');
    expect(JSON.parse(`"${body}"`)).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes));
  });

  it('holds a character split at the end of a chunk and writes it whole with the next', () => {
    const e = new JsonUtf8Escaper();
    const out = Buffer.alloc(64);
    const euro = Buffer.from('a€');
    expect(out.toString('utf8', 0, e.write(euro.subarray(0, 2), out, 0))).toBe('a');
    expect(e.holding).toBe(true);
    expect(out.toString('utf8', 0, e.write(euro.subarray(2), out, 0))).toBe('€');
    expect(e.holding).toBe(false);
  });
});
