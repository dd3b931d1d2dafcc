/**
 * The memory the host's thread and the recording thread share for output
 * on its way to a file: batches are copied in at the head and freed in the
 * order they were sent, as the worker takes each one. Passing a batch is
 * then a small message; a fresh buffer per batch (moved to the worker)
 * was mapped, faulted in and freed ~100 times a second in a flood, and
 * handing buffers back and forth cost more in postMessage than it saved.
 */
export class RecordingRing {
  readonly memory: SharedArrayBuffer;
  private readonly bytes: Uint8Array;
  private head = 0;
  private used = 0;
  /** What each batch still in the worker's hands holds of the ring (its length and any end skipped to wrap), oldest first. */
  private readonly held: number[] = [];

  constructor(size: number) {
    this.memory = new SharedArrayBuffer(size);
    this.bytes = new Uint8Array(this.memory);
  }

  /** Copies the chunks in, one batch; returns where it begins, or -1 when the ring has no room (the caller sends a buffer of its own). */
  put(chunks: readonly Uint8Array[], len: number): number {
    const size = this.bytes.length;
    const skip = this.head + len > size ? size - this.head : 0;
    if (this.used + skip + len > size) return -1;
    const at = skip > 0 ? 0 : this.head;
    let to = at;
    for (const c of chunks) {
      this.bytes.set(c, to);
      to += c.length;
    }
    // A batch that ends at the very end wraps the head to the start, not past the end.
    this.head = (at + len) % size;
    this.used += skip + len;
    this.held.push(skip + len);
    return at;
  }

  /** The oldest batch is taken: its room is free again. */
  free(): void {
    this.used -= this.held.shift() ?? 0;
  }
}
