import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileWat } from '../../scripts/build-wasm.mjs';
import { rng } from '../../test/helpers/rng.js';
import { plainBytes } from './plain-scan.js';
import { PLAIN_SCAN_WASM } from './plain-scan-wasm.js';

/** What plain means, a byte at a time: the oracle the WebAssembly scan must agree with. */
function plainOracle(data: Uint8Array): boolean {
  for (let i = 0; i < data.length; ) {
    const c = data[i]!;
    if ((c >= 0x20 && c !== 0x7f && c !== 0xc2) || c === 0x09) i += 1;
    else if (c === 0xc2) {
      if (i + 1 >= data.length || (data[i + 1]! >= 0x80 && data[i + 1]! <= 0x9f)) return false;
      i += 1;
    } else if (c === 0x0d) {
      if (data[i + 1] !== 0x0a) return false;
      i += 2;
    } else if (c === 0x1b && data[i + 1] === 0x5b) {
      let j = i + 2;
      while (j < data.length && ((data[j]! >= 0x30 && data[j]! <= 0x39) || data[j] === 0x3b)) j++;
      if (data[j] !== 0x6d && data[j] !== 0x4b) return false;
      i = j + 1;
    } else return false;
  }
  return true;
}

const PIECES = ['plain text ', 'Å', '日本語', '\u00a0', '\t', '\r\n', '\x1b[m', '\x1b[1;31m', '\x1b[K', '\x1b[0K', '🙂', 'x'.repeat(40)];
const ODD = ['\r', '\n', '\x07', '\x7f', '\x85', '\x9b', '\x1b[2J', '\x1b]0;t\x07', '\x1b[38:2m', '\x1b', '\x1b[12'];

/** Mostly plain text with, now and then, something that is not. */
function sample(r: () => number, length: number, oddRate: number): Buffer {
  let s = '';
  while (s.length < length) s += r() < oddRate ? ODD[Math.floor(r() * ODD.length)]! : PIECES[Math.floor(r() * PIECES.length)]!;
  return Buffer.from(s);
}

describe('plainBytes (WebAssembly)', () => {
  it('ships the module plain-scan.wat compiles to (npm run build:wasm writes it)', async () => {
    const wat = fileURLToPath(new URL('./plain-scan.wat', import.meta.url));
    expect((await compileWat(wat)).toString('base64')).toBe(PLAIN_SCAN_WASM);
    expect(readFileSync(wat, 'utf8')).toContain('i8x16.bitmask');
  });

  it('agrees with the byte-at-a-time oracle on random text, plain and not, short and long', () => {
    const r = rng(42);
    let plain = 0;
    for (let k = 0; k < 400; k++) {
      const data = sample(r, 1 + Math.floor(r() * (k % 10 === 0 ? 200_000 : 300)), k % 2 === 0 ? 0 : 0.02);
      const want = plainOracle(data);
      if (want) plain++;
      expect(plainBytes(data), JSON.stringify(data.subarray(0, 80).toString())).toBe(want);
    }
    expect(plain).toBeGreaterThan(150);
  });

  it('finds a control at each of the sixteen places of a step, at every offset in memory', () => {
    for (const odd of ['\x01', '\x1f', '\x7f', '\x85', '\r', '\n', '\x1b[2J']) {
      for (let place = 0; place < 40; place++) {
        const text = Buffer.from('abc\r\n'.repeat(7) + 'x'.repeat(place) + odd + 'more\r\n'.repeat(5));
        for (let shift = 0; shift < 4; shift++) {
          const data = Buffer.concat([Buffer.alloc(shift), text]).subarray(shift);
          expect(plainBytes(data), `${JSON.stringify(odd)} at ${place}, shifted ${shift}`).toBe(false);
        }
        expect(plainBytes(Buffer.from('abc\r\n'.repeat(7) + 'x'.repeat(place) + '\x1b[1;2m\r\n'))).toBe(true);
      }
    }
  });

  it('reads a sequence cut by its 64 KiB window as one, wherever it is cut', () => {
    const CHUNK = 64 * 1024;
    for (const seq of ['\r\n', '\x1b[01;34m', '\x1b[K', 'é', '\u0085', '\r\x07', '\x1b[1;2H']) {
      for (let back = 0; back <= seq.length + 1; back++) {
        const head = 'y'.repeat(CHUNK - back);
        const data = Buffer.from(head + seq + 'tail\r\n' + 'z'.repeat(CHUNK + 7) + '\r\n');
        expect(plainBytes(data), `${JSON.stringify(seq)} ${back} bytes before the cut`).toBe(plainOracle(data));
      }
    }
  });

  it('is not plain for a sequence not ended by the end of the data, or longer than its window', () => {
    for (const end of ['\r', '\x1b', '\x1b[', '\x1b[1;3', '\xc2']) expect(plainBytes(Buffer.from(`text\r\n${end}`, 'latin1'))).toBe(false);
    expect(plainBytes(Buffer.from(`a\x1b[${'1;'.repeat(40_000)}m\r\n`))).toBe(false);
    expect(plainBytes(Buffer.from(`a\x1b[${'1;'.repeat(100)}m\r\n`))).toBe(true);
    expect(plainBytes(Buffer.alloc(0))).toBe(true);
  });
});
