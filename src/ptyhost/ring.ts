/**
 * The last `capacity` bytes a job printed, addressed by absolute offset (bytes
 * since the job started), so a client that saw up to offset N can ask for
 * exactly what came after. Chunks are kept as node-pty delivered them.
 */
export class OutputRing {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Offset after the last byte ever pushed. */
  private endOffset = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity ${capacity} is not a positive whole number of bytes`);
  }

  get end(): number {
    return this.endOffset;
  }

  /** Offset of the oldest byte still held. */
  get start(): number {
    return this.endOffset - this.size;
  }

  push(data: Buffer): void {
    if (data.length === 0) return;
    this.chunks.push(data);
    this.size += data.length;
    this.endOffset += data.length;
    this.trim();
  }

  /** The held bytes from `since` on (from the oldest held when `since` is older), as chunks. */
  since(since = 0): { from: number; chunks: Buffer[] } {
    const from = Math.min(Math.max(since, this.start), this.endOffset);
    let skip = from - this.start;
    const out: Buffer[] = [];
    for (const c of this.chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      out.push(skip > 0 ? c.subarray(skip) : c);
      skip = 0;
    }
    return { from, chunks: out };
  }

  /**
   * Drops whole chunks only: cutting into one would copy it on nearly every
   * push of a flood. So it holds from `capacity` to `capacity` plus one chunk
   * (a PTY read is at most 64 KiB); node-pty's chunks are buffers of their
   * own, so nothing dropped stays pinned.
   */
  private trim(): void {
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.capacity) {
      this.size -= this.chunks.shift()!.length;
    }
  }
}
