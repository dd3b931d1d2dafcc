/**
 * A terminal's bytes straight into the body of a JSON string, bytes to
 * bytes: what `JSON.stringify(decoder.decode(chunk, { stream: true }))`
 * gives between its quotes, encoded as UTF-8, without the string between.
 * Valid UTF-8 is copied as is (JSON allows it raw); `"`, `\` and C0
 * controls are escaped as JSON.stringify escapes them; each maximal invalid
 * subpart becomes one U+FFFD, as the WHATWG decoder (TextDecoder) does; a
 * character split across chunks is held and written whole with the later
 * chunk. Decoding to a JS string, escaping it and encoding it again cost a
 * recording three passes and three fresh allocations per event.
 */

import { JSON_ESCAPE_WASM } from './json-escape-wasm.js';
import { lazyWasm } from '../util/wasm-module.js';

const FFFD = [0xef, 0xbf, 0xbd] as const;

/** The most bytes write() (plus end()) can produce for `n` bytes in: `\u00XX` is 6 for 1, and a held partial character adds 4. */
export function maxEscapedBytes(n: number): number {
  return 6 * n + 8;
}

/** Continuation bytes a lead byte needs, and the range its first continuation must fall in; needed 0: not a lead. */
function leadOf(b: number): { needed: number; lower: number; upper: number } {
  if (b >= 0xc2 && b <= 0xdf) return { needed: 1, lower: 0x80, upper: 0xbf };
  if (b >= 0xe0 && b <= 0xef) return { needed: 2, lower: b === 0xe0 ? 0xa0 : 0x80, upper: b === 0xed ? 0x9f : 0xbf };
  if (b >= 0xf0 && b <= 0xf4) return { needed: 3, lower: b === 0xf0 ? 0x90 : 0x80, upper: b === 0xf4 ? 0x8f : 0xbf };
  return { needed: 0, lower: 0, upper: 0 };
}

export class JsonUtf8Escaper {
  /** A character begun at the end of the last chunk: its bytes so far (each checked), and how many it needs in all. */
  private readonly held = new Uint8Array(4);
  private heldLen = 0;
  private heldNeeds = 0;

  /**
   * Escapes `src` into `out` from `at` (room: maxEscapedBytes(src.length));
   * returns the end. The bytes go through the WebAssembly escaper
   * (json-escape.wat) a 64 KiB piece at a time: sixteen bytes a step where
   * nothing needs escaping, the bulk of a flood.
   */
  write(src: Uint8Array, out: Uint8Array, at: number): number {
    let i = 0;
    let o = at;
    if (this.heldLen > 0) {
      const r = this.finishHeld(src, out, o);
      i = r.i;
      o = r.o;
    }
    const wasm = escaper();
    for (const n = src.length; i < n; ) {
      const m = Math.min(PIECE, n - i);
      wasm.input.set(src.subarray(i, i + m));
      const len = wasm.escape(m);
      out.set(wasm.output.subarray(0, len), o);
      o += len;
      const stopped = wasm.stopped.value;
      if (stopped === m) i += m;
      else if (i + m < n) i += stopped;
      else {
        // The data ends inside a character: held, to be written whole with the next chunk.
        this.held.set(src.subarray(i + stopped, n));
        this.heldLen = n - i - stopped;
        this.heldNeeds = leadOf(this.held[0]!).needed + 1;
        i = n;
      }
    }
    return o;
  }

  /** The end of the stream: a character left unfinished is one U+FFFD. */
  end(out: Uint8Array, at: number): number {
    if (this.heldLen === 0) return at;
    this.heldLen = 0;
    return putFFFD(out, at);
  }

  /** Whether a partial character is held for the next chunk. */
  get holding(): boolean {
    return this.heldLen > 0;
  }

  private finishHeld(src: Uint8Array, out: Uint8Array, o: number): { i: number; o: number } {
    const lead = leadOf(this.held[0]!);
    let i = 0;
    while (this.heldLen < this.heldNeeds) {
      if (i >= src.length) return { i, o };
      const c = src[i]!;
      const first = this.heldLen === 1;
      if (first ? c < lead.lower || c > lead.upper : c < 0x80 || c > 0xbf) {
        this.heldLen = 0;
        return { i, o: putFFFD(out, o) };
      }
      this.held[this.heldLen++] = c;
      i++;
    }
    out.set(this.held.subarray(0, this.heldLen), o);
    o += this.heldLen;
    this.heldLen = 0;
    return { i, o };
  }
}

function putFFFD(out: Uint8Array, o: number): number {
  out[o] = FFFD[0];
  out[o + 1] = FFFD[1];
  out[o + 2] = FFFD[2];
  return o + 3;
}

/** The input window of the WebAssembly escaper (json-escape.wat's IN to OUT). */
const PIECE = 64 * 1024;
const IN = 65536;
const OUT = 131072;

const escaper = lazyWasm(JSON_ESCAPE_WASM, (exports) => {
  const e = exports as { escape(n: number): number; stopped: WebAssembly.Global; memory: WebAssembly.Memory };
  const memory = e.memory.buffer;
  return { escape: e.escape, stopped: e.stopped, input: new Uint8Array(memory, IN, PIECE), output: new Uint8Array(memory, OUT, maxEscapedBytes(PIECE) + 16) };
});
