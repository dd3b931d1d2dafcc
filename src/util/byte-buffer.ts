/**
 * Bytes appended into one buffer that is filled again after clear(): a
 * stream's reader that must keep bytes past a read copies them here rather
 * than into a fresh Buffer each time. Buffers live outside V8's heap and are
 * freed only when a GC finds them dead; a 200 MB flood copied into fresh
 * ones made V8 run a full mark-compact every ~150 ms under the
 * external-memory pressure, where its scavenges alone had little to do.
 */

/** Capacity kept across clear(): a buffer grown past it (one big frame, a flood that could not be collapsed) is let go. */
const KEEP_BYTES = 2 * 1024 * 1024;
const MIN_BYTES = 16 * 1024;

export class ByteBuffer {
  private buf: Buffer | undefined;
  private used = 0;

  get length(): number {
    return this.used;
  }

  append(data: Buffer): void {
    const need = this.used + data.length;
    if (this.buf === undefined || need > this.buf.length) this.grow(need);
    data.copy(this.buf!, this.used);
    this.used = need;
  }

  /** What is held, as a view: good until the next append, clear or release. */
  view(): Buffer {
    return this.buf === undefined ? Buffer.alloc(0) : this.buf.subarray(0, this.used);
  }

  /** Empty, keeping the buffer to fill again unless it grew big. */
  clear(): void {
    this.used = 0;
    if (this.buf !== undefined && this.buf.length > KEEP_BYTES) this.buf = undefined;
  }

  /** Empty, and the buffer let go of (nothing more is expected soon). */
  release(): void {
    this.used = 0;
    this.buf = undefined;
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(MIN_BYTES, 2 ** Math.ceil(Math.log2(need))));
    if (this.buf !== undefined) this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }
}
