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

/** 0: copied as is; 1: escaped; 2: 0x80 and above (UTF-8 or invalid). */
const KIND = new Uint8Array(256);
/** The escape of each byte of kind 1, as bytes. */
const ESCAPES: Uint8Array[] = [];
const HEX = '0123456789abcdef';
for (let b = 0; b < 256; b++) {
  if (b >= 0x80) KIND[b] = 2;
  else if (b < 0x20 || b === 0x22 || b === 0x5c) {
    KIND[b] = 1;
    const short: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
    ESCAPES[b] = Buffer.from(short[b] ?? `\\u00${HEX[b >> 4]}${HEX[b & 15]}`, 'latin1');
  }
}
const FFFD = [0xef, 0xbf, 0xbd] as const;
/** Words are read in the platform's byte order and written back in it. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Whether 4 bytes (one int32) are all copied as is: none ≥ 0x80, below 0x20, `"` or `\` (bit tricks that test every byte at once). */
function plainWord(w: number): boolean {
  const q = w ^ 0x22222222;
  const s = w ^ 0x5c5c5c5c;
  return ((w | ((w - 0x20202020) & ~w) | ((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s)) & 0x80808080) === 0;
}

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

  /** Escapes `src` into `out` from `at` (room: maxEscapedBytes(src.length)); returns the end. */
  write(src: Uint8Array, out: Uint8Array, at: number): number {
    let i = 0;
    let o = at;
    if (this.heldLen > 0) {
      const r = this.finishHeld(src, out, o);
      i = r.i;
      o = r.o;
    }
    const n = src.length;
    const base = src.byteOffset;
    // Plain text (the bulk of a flood) is copied a word at a time: twice as fast as byte by byte.
    const words = new Int32Array(src.buffer, 0, (base + n) >> 2);
    const to = new DataView(out.buffer, out.byteOffset, out.length);
    while (i < n) {
      if (((base + i) & 3) === 0) {
        let k = (base + i) >> 2;
        while (k < words.length && plainWord(words[k]!)) {
          to.setInt32(o, words[k]!, LITTLE_ENDIAN);
          o += 4;
          k++;
        }
        i = (k << 2) - base;
        if (i >= n) break;
      }
      const b = src[i]!;
      const kind = KIND[b]!;
      if (kind === 0) {
        out[o++] = b;
        i++;
      } else if (kind === 1) {
        const e = ESCAPES[b]!;
        out.set(e, o);
        o += e.length;
        i++;
      } else {
        const r = this.multibyte(src, i, out, o);
        i = r.i;
        o = r.o;
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

  private multibyte(src: Uint8Array, i: number, out: Uint8Array, o: number): { i: number; o: number } {
    const { needed, lower, upper } = leadOf(src[i]!);
    if (needed === 0) return { i: i + 1, o: putFFFD(out, o) };
    for (let k = 1; k <= needed; k++) {
      if (i + k >= src.length) {
        this.held.set(src.subarray(i, i + k));
        this.heldLen = k;
        this.heldNeeds = needed + 1;
        return { i: src.length, o };
      }
      const c = src[i + k]!;
      // The offending byte is not consumed: it starts over on its own.
      if (k === 1 ? c < lower || c > upper : c < 0x80 || c > 0xbf) return { i: i + k, o: putFFFD(out, o) };
    }
    for (let k = 0; k <= needed; k++) out[o++] = src[i + k]!;
    return { i: i + needed + 1, o };
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
