/**
 * Output held for the screen, in two buffers used again and again
 * (ByteBuffer): one filling while the other is with xterm. A flood then
 * allocates nothing per chunk or per batch.
 */
import { ByteBuffer } from '../util/byte-buffer.js';

export class HeldBytes {
  private filling = new ByteBuffer();
  private parsing = new ByteBuffer();

  get length(): number {
    return this.filling.length;
  }

  append(data: Buffer): void {
    this.filling.append(data);
  }

  /** What is held, as a view: good until the next append, replace or take. */
  view(): Buffer {
    return this.filling.view();
  }

  /** What is held becomes `bytes`, a collapse of view() in memory of its own. */
  replace(bytes: Buffer): void {
    this.filling.clear();
    this.filling.append(bytes);
  }

  /**
   * Hands what is held over (to xterm) and starts empty. The bytes stay good
   * until the next take(): call it only once xterm has parsed them.
   */
  take(): Buffer {
    const out = this.filling.view();
    [this.filling, this.parsing] = [this.parsing, this.filling];
    this.filling.clear();
    return out;
  }

  /** Nothing held and nothing with xterm: both buffers go until the next output. */
  release(): void {
    if (this.filling.length > 0) return;
    this.filling.release();
    this.parsing.release();
  }
}
