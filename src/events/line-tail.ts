/**
 * Follows a file that another process appends to, from its start, and hands
 * over complete lines, whatever their format (the tool-call event file and
 * the agents' transcripts both build on it). chokidar drops a 'change' within
 * 50 ms of the previous one (and a raw notification within 5 ms) and never
 * replays it, so we also listen to 'raw', end each burst with one re-read
 * timed after chokidar's throttle clears, and stat on a slow timer as a
 * backstop for file systems that lose notifications (slower on local ones,
 * which lose them only when the queue overflows).
 */
import { open as openFile, stat as statFile, type FileHandle } from 'node:fs/promises';
import { watch, type FSWatcher } from 'chokidar';
import { dirname } from 'node:path';
import { backOff, beatFor, type BeatTask } from '../util/beat.js';
import { notifiesLocally } from '../util/fs-kind.js';

export interface TailHandlers {
  line(text: string, lineNo: number): void;
  /** The file shrank or was replaced: reading restarts at its beginning. */
  restart(): void;
  problem(message: string): void;
}

export interface LineTailCloseOptions {
  /** Also hand over an unterminated last line. Default false. */
  flushPartial?: boolean;
}

const TRAILING_READ_MS = 75;
/**
 * A file with nothing new is polled ever less often: notifications are the
 * main path. Down to once in 2 minutes (128 times slower) on a local file
 * system, where the poll only covers a notification queue that overflowed;
 * once in 30 s (32 times slower) on any other, which may lose some.
 */
const safetyCeiling = (ms: number, local: boolean) => Math.max(ms, local ? Math.min(ms * 128, 120_000) : Math.min(ms * 32, 30_000));
const CHUNK = 1 << 20;

export class LineTail {
  private readonly lines = new LineSplitter();
  private offset = 0;
  private ino: number | undefined;
  private watcher: FSWatcher | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private trailing: NodeJS.Timeout | undefined;
  private poll: BeatTask | undefined;
  private pollEveryMs = 0;
  private closing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly on: TailHandlers,
  ) {}

  static async open(path: string, on: TailHandlers, safetyPollMs = 1000): Promise<LineTail> {
    const tail = new LineTail(path, on);
    // Watch before the first read: anything appended in between is seen by one or the other.
    // Not persistent: the job's own handles keep the process alive; a forgotten tail must not.
    tail.watcher = watch(path, { persistent: false, ignoreInitial: true, awaitWriteFinish: false });
    tail.watcher.on('all', () => tail.kick());
    tail.watcher.on('raw', () => tail.kick());
    tail.watcher.on('error', (e) => on.problem(`${path}: watch failed: ${errText(e)}`));
    await new Promise<void>((resolve) => tail.watcher?.once('ready', resolve));
    await tail.drain();
    if (safetyPollMs > 0) {
      const ceiling = safetyCeiling(safetyPollMs, await notifiesLocally(dirname(path)));
      tail.pollEveryMs = safetyPollMs;
      tail.poll = beatFor(safetyPollMs).every(safetyPollMs, () => {
        const offset = tail.offset;
        void tail.pollOnce().then(() => {
          tail.pollEveryMs = backOff(tail.pollEveryMs, tail.offset !== offset, safetyPollMs, ceiling);
        });
        // Backed off, each file at its own pace (50-100 %): files opened together must not all be polled in one second.
        return tail.pollEveryMs === safetyPollMs ? safetyPollMs : Math.round(tail.pollEveryMs * (0.5 + 0.5 * Math.random()));
      });
    }
    return tail;
  }

  /**
   * Reads what is there now, then stops. Only complete lines by default: a
   * torn last line is an unfinished write. With flushPartial, an unterminated
   * last line is handed over too (after the read, as the last line).
   */
  close(options: LineTailCloseOptions = {}): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.trailing);
      this.poll?.dispose();
      await this.watcher?.close();
      await this.drain();
      this.closed = true;
    })();
    return options.flushPartial ? this.closing.then(() => this.flushPartial()) : this.closing;
  }

  private flushPartial(): void {
    const rest = this.lines.flush();
    if (rest !== undefined) this.deliver(rest.text, rest.lineNo);
  }

  /**
   * Reads new data now (also what the timers and the watcher do). One reader
   * at a time; a request during a read causes one more pass after it.
   */
  drain(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.readNew();
      } while (this.again);
    })().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** The safety poll: one stat, and a read only when the file grew or was replaced. */
  private async pollOnce(): Promise<void> {
    if (this.closed || this.reading) return;
    const st = await statFile(this.path).catch(() => undefined);
    if (st && st.size === this.offset && st.ino === this.ino) return;
    await this.drain();
  }

  private kick(): void {
    if (this.closing) return;
    void this.drain();
    clearTimeout(this.trailing);
    this.trailing = setTimeout(() => void this.drain(), TRAILING_READ_MS);
    this.trailing.unref();
  }

  private async readNew(): Promise<void> {
    let fh: FileHandle;
    try {
      fh = await openFile(this.path, 'r');
    } catch (e) {
      // Deleted: start over if it comes back. Anything else is worth a word.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.reset(undefined);
      else this.on.problem(`${this.path}: cannot read: ${errText(e)}`);
      return;
    }
    try {
      await this.readFrom(fh);
    } catch (e) {
      this.on.problem(`${this.path}: cannot read: ${errText(e)}`);
    } finally {
      await fh.close();
    }
  }

  private async readFrom(fh: FileHandle): Promise<void> {
    const st = await fh.stat();
    // Truncated or replaced: the old offset means nothing in the new content.
    if (st.size < this.offset || (this.ino !== undefined && st.ino !== this.ino)) {
      this.reset(st.ino);
      this.on.restart();
    }
    this.ino = st.ino;
    while (this.offset < st.size) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, st.size - this.offset));
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
      if (bytesRead === 0) break; // truncated under us; the next pass restarts
      this.offset += bytesRead;
      for (const l of this.lines.push(buf.subarray(0, bytesRead))) this.deliver(l.text, l.lineNo);
    }
  }

  private deliver(text: string, lineNo: number): void {
    try {
      this.on.line(text, lineNo);
    } catch (e) {
      this.on.problem(`${this.path}:${lineNo}: line handler failed: ${errText(e)}`);
    }
  }

  private reset(ino: number | undefined): void {
    this.offset = 0;
    this.ino = ino;
    this.lines.reset();
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export interface Line {
  text: string;
  lineNo: number;
}

/** Splits bytes into lines; splitting on 0x0A before decoding keeps multi-byte characters whole. */
export class LineSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private lineNo = 0;

  push(chunk: Buffer): Line[] {
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Line[] = [];
    let start = 0;
    let nl: number;
    while ((nl = data.indexOf(0x0a, start)) !== -1) {
      out.push(this.line(data.toString('utf8', start, nl)));
      start = nl + 1;
    }
    // Copy: a subarray would pin the whole read chunk for one partial line.
    this.pending = Buffer.from(data.subarray(start));
    return out;
  }

  /** The unterminated tail, if any, as a last line. */
  flush(): Line | undefined {
    if (this.pending.length === 0) return undefined;
    const text = this.pending.toString('utf8');
    this.pending = Buffer.alloc(0);
    return this.line(text);
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
    this.lineNo = 0;
  }

  private line(text: string): Line {
    return { text: text.endsWith('\r') ? text.slice(0, -1) : text, lineNo: ++this.lineNo };
  }
}
