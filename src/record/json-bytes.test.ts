import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileWat } from '../../scripts/build-wasm.mjs';
import { rng } from '../../test/helpers/rng.js';
import { JsonUtf8Escaper, maxEscapedBytes } from './json-bytes.js';
import { JSON_ESCAPE_WASM } from './json-escape-wasm.js';

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

/** `bytes` in chunks of 0 to `under` - 1 bytes, empty ones included. */
function randomCuts(bytes: Uint8Array, next: () => number, under: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const len = Math.floor(next() * under);
    chunks.push(bytes.subarray(at, at + len));
    at += len;
  }
  return chunks;
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
      const chunks = randomCuts(bytes, next, 4);
      expect(escaped(chunks), Buffer.from(bytes).toString('hex')).toEqual(expected(chunks));
    }
  });

  it('yields valid JSON that parses back to the decoded text', () => {
    const bytes = terminalBytes(rng(7), 5000);
    const body = escaped([bytes]).join('');
    expect(JSON.parse(`"${body}"`)).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes));
  });

  it('matches on plain text with one byte or character that needs more at each of the places of a sixteen-byte step', () => {
    const odd = ['"', '\\', '\n', '\x01', '\x1f', 'é', '€', '😀', '\u2028'].map((c) => Buffer.from(c));
    odd.push(Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from([0xed, 0xa0, 0x80]));
    for (const o of odd) {
      for (let place = 0; place < 40; place++) {
        const bytes = Buffer.concat([Buffer.from('x'.repeat(place)), o, Buffer.from('y'.repeat(50)), o, Buffer.from('z'.repeat(17))]);
        expect(escaped([bytes]), `${o.toString('hex')} at ${place}`).toEqual(expected([bytes]));
      }
    }
  });

  it('writes a character cut by the 64 KiB pieces it escapes a write in whole, and long writes as JSON.stringify does', () => {
    const next = rng(64);
    for (const c of ['é', '€', '😀'].map((x) => Buffer.from(x)).concat([Buffer.from([0xe2, 0x82, 0x41])])) {
      for (let back = 0; back <= 4; back++) {
        const bytes = Buffer.concat([Buffer.from('a'.repeat(64 * 1024 - back)), c, terminalBytes(next, 70_000)]);
        expect(escaped([bytes]), `${c.toString('hex')} ${back} bytes before the cut`).toEqual(expected([bytes]));
      }
    }
    const bytes = terminalBytes(next, 300_000);
    const chunks = randomCuts(bytes, next, 100_000);
    expect(escaped([bytes])).toEqual(expected([bytes]));
    expect(escaped(chunks)).toEqual(expected(chunks));
  });

  it('ships the module json-escape.wat compiles to (npm run build:wasm writes it)', async () => {
    expect((await compileWat(fileURLToPath(new URL('./json-escape.wat', import.meta.url)))).toString('base64')).toBe(JSON_ESCAPE_WASM);
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
