/**
 * A terminal's output as it came, bytes, with its text decoded only for
 * whoever asks. Under a flood the screen parses the bytes (xterm decodes
 * UTF-8 itself) and nobody may want the text: decoding every chunk into a
 * string anyway was a third of what the daemon allocated in a 200 MB flood,
 * and strings held across a scavenge are promoted and stay until a full GC
 * (its RSS grew 64 MB and more).
 */
import { StringDecoder } from 'node:string_decoder';
import { Emitter, type Event } from '../util/event.js';

export interface OutputChunk {
  readonly bytes: Buffer;
  /** The chunk decoded, continuing a character the previous chunk began if that one was decoded too. */
  text(): string;
}

/** UTF-8 continuation bytes: 10xxxxxx. */
const isContinuation = (b: number) => (b & 0xc0) === 0x80;

/**
 * One stream's chunks in order. A chunk's text continues the decoder's state
 * when the chunk before it was decoded. When it was not (nobody listened for
 * text then), a fresh decoder first takes the last bytes of that chunk, kept
 * for this (at most 3: a character's first bytes), so a listener that joins
 * mid-stream, or after an adopted job's replay, gets a split character whole
 * and nothing of the chunks it never heard decoded.
 */
export class Utf8Stream {
  private decoder = new StringDecoder('utf8');
  private seq = 0;
  /** The sequence number of the chunk the decoder took last (0: none). */
  private decoded = 0;
  /** The last bytes of the newest chunk and of the one before it (a copy: chunks may be views of a buffer read into again). */
  private tail = new Tail();
  private before = new Tail();

  chunk(bytes: Buffer): OutputChunk {
    const n = ++this.seq;
    [this.before, this.tail] = [this.tail, this.before];
    this.tail.take(bytes);
    let memo: string | undefined;
    return {
      bytes,
      text: () => (memo ??= this.decode(n, bytes)),
    };
  }

  /** What the decoder holds of a character cut off by the end (U+FFFD), if the last chunk was decoded; '' otherwise. */
  end(): string {
    if (this.decoded !== this.seq) return '';
    return this.decoder.end();
  }

  private decode(n: number, bytes: Buffer): string {
    // Out of order (an old chunk asked after a newer one): on its own.
    if (n <= this.decoded || (n !== this.decoded + 1 && n !== this.seq)) return new StringDecoder('utf8').write(skipContinuation(bytes));
    if (n !== this.decoded + 1) {
      this.decoder = new StringDecoder('utf8');
      // What the skipped chunk's tail decodes to is its own, not this chunk's: only the state stays.
      this.decoder.write(this.before.bytes());
    }
    this.decoded = n;
    return this.decoder.write(bytes);
  }
}

/** A chunk's last 3 bytes, copied into memory of its own. */
class Tail {
  private readonly buf = Buffer.alloc(3);
  private length = 0;

  take(bytes: Buffer): void {
    this.length = bytes.copy(this.buf, 0, Math.max(0, bytes.length - 3));
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function skipContinuation(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length && i < 3 && isContinuation(bytes[i]!)) i++;
  return i === 0 ? bytes : bytes.subarray(i);
}

/**
 * Chunk listeners and text listeners of one terminal's output, over one
 * Utf8Stream: a chunk's text is decoded once, when a text listener is there
 * or a chunk listener first asks, however many read it.
 */
export class OutputFan {
  private readonly chunks = new Emitter<OutputChunk>();
  private readonly texts = new Emitter<string>();
  private readonly stream = new Utf8Stream();
  readonly onOutput: Event<OutputChunk> = this.chunks.event;
  readonly onText: Event<string> = this.texts.event;

  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const c = this.stream.chunk(bytes);
    this.chunks.fire(c);
    if (!this.texts.hasListeners) return;
    this.emitText(c.text());
  }

  /** Output that came before this fan's listeners (an adopted job's replay): counted, not decoded, so a character split between it and the next chunk comes out whole. */
  before(bytes: Buffer): void {
    if (bytes.length > 0) this.stream.chunk(bytes);
  }

  /** The end of the output: a character cut off by it comes out as U+FFFD rather than not at all (to chunk listeners as a chunk of no bytes). */
  end(): void {
    const rest = this.stream.end();
    if (rest === '') return;
    const last: OutputChunk = { bytes: Buffer.alloc(0), text: () => rest };
    this.chunks.fire(last);
    this.emitText(rest);
  }

  /** The terminal is let go of: its listeners are too. */
  clear(): void {
    this.chunks.dispose();
    this.texts.dispose();
  }

  private emitText(text: string): void {
    if (text !== '') this.texts.fire(text);
  }
}
