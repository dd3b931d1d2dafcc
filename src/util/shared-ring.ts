/**
 * Bytes one thread writes and another reads through memory both share, with
 * no message per write: a job's PTY thread hands its output over this way
 * (pty-thread.ts). A message per read of the terminal, ~50,000 in a 200 MB
 * flood, cost the job more than everything the reader did with the bytes.
 *
 * One writer, one reader. Positions are byte counts modulo 2^32 in shared
 * memory (written with Atomics, so a reader that sees a position sees the
 * bytes before it), and the reader says when it goes to sleep, so the
 * writer knows to wake it with the one message that is still needed.
 */

const W = 0;
const R = 1;
const ASLEEP = 2;

export interface SharedRingMemory {
  readonly data: SharedArrayBuffer;
  readonly control: SharedArrayBuffer;
}

export class SharedRing {
  private readonly bytes: Uint8Array;
  private readonly control: Int32Array;

  /** Memory for a ring of `size` bytes, its reader asleep: the first write wakes it. */
  static memory(size: number): SharedRingMemory {
    // A power of two divides 2^32: positions stay consistent as their counts wrap.
    if (!Number.isInteger(size) || size <= 0 || size > 2 ** 30 || (size & (size - 1)) !== 0) throw new RangeError(`ring size ${size}: a power of two up to 1 GiB`);
    const control = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
    new Int32Array(control)[ASLEEP] = 1;
    return { data: new SharedArrayBuffer(size), control };
  }

  constructor(readonly shared: SharedRingMemory) {
    this.bytes = new Uint8Array(shared.data);
    this.control = new Int32Array(shared.control);
  }

  /** Bytes written and not yet read. */
  get available(): number {
    return (Atomics.load(this.control, W) - Atomics.load(this.control, R)) >>> 0;
  }

  /** Room for the writer. */
  get room(): number {
    return this.bytes.length - this.available;
  }

  /** The writer: copies in as much of `data` as there is room for; returns how much. */
  write(data: Uint8Array): number {
    const n = Math.min(data.length, this.room);
    if (n === 0) return 0;
    const w = Atomics.load(this.control, W);
    const at = (w >>> 0) % this.bytes.length;
    const first = Math.min(n, this.bytes.length - at);
    this.bytes.set(data.subarray(0, first), at);
    if (first < n) this.bytes.set(data.subarray(first, n), 0);
    Atomics.store(this.control, W, (w + n) | 0);
    return n;
  }

  /** The writer, after a write: true (once) when the reader had gone to sleep and must be woken. */
  wakeNeeded(): boolean {
    return Atomics.compareExchange(this.control, ASLEEP, 1, 0) === 1;
  }

  /** The reader: everything written so far, in a buffer of its own, or undefined when there is nothing. */
  read(): Buffer | undefined {
    const n = this.available;
    if (n === 0) return undefined;
    const r = Atomics.load(this.control, R);
    const at = (r >>> 0) % this.bytes.length;
    const out = Buffer.allocUnsafe(n);
    const first = Math.min(n, this.bytes.length - at);
    out.set(this.bytes.subarray(at, at + first), 0);
    if (first < n) out.set(this.bytes.subarray(0, n - first), first);
    Atomics.store(this.control, R, (r + n) | 0);
    return out;
  }

  /**
   * The reader goes to sleep until woken (wakeNeeded): false when bytes came
   * meanwhile and it must read on. Either it sees them here or the writer
   * sees it asleep, never neither.
   */
  sleep(): boolean {
    Atomics.store(this.control, ASLEEP, 1);
    if (this.available === 0) return true;
    Atomics.compareExchange(this.control, ASLEEP, 1, 0);
    return false;
  }
}
