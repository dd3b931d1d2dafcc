import { createRequire } from 'node:module';
import type { Terminal } from '@xterm/headless';
import { FOLD_START, fingerprintOf, foldRow, lastNonBlankRow, rowHash, type ScreenSnapshot } from '../core/screen-snapshot.js';
import { rowStyle, trimSpaces } from './row-read.js';
import { InputError } from '../util/errors.js';
import { collapseScrolled, linesToKeep, type Flood } from './collapse.js';
import { DirtyRows } from './dirty-rows.js';

// Both are webpack CommonJS bundles. Taken with require: an ES import makes Node scan their source for
// export names first (cjs-module-lexer), which took `run` 20-30 ms of its start for nothing.
const requireCjs = createRequire(import.meta.url);
const xterm = requireCjs('@xterm/headless') as typeof import('@xterm/headless');
const serializeAddon = requireCjs('@xterm/addon-serialize') as typeof import('@xterm/addon-serialize');

/** Enough for a resize that grows the screen to pull old lines back, as real terminals do. */
export const SCROLLBACK = 500;
/**
 * The most of one write xterm is handed at once (see write). A drill's
 * screen, where only throughput counts, hands over the whole write (at most
 * the few MB a replay holds back) and so parses it in the caller's task:
 * queued pieces were parsed in 12 ms slices with a timer (at least 1 ms)
 * between slices, 8–15 % of a drill of `ls -laR` spent idle (0.92x → 0.99x
 * a bare parse).
 */
const WHOLE = Infinity;
/**
 * A live job's pieces, smaller: its screen shares the daemon's thread with
 * every other job, the socket and the pager. Before V8 has optimised
 * xterm's parser (a daemon's first flood) 64 KB took 16 ms alone and 46–77
 * ms in a daemon among other jobs, in one task; 8 KB cold is 8 ms alone,
 * 0.2 ms once optimised.
 */
export const LIVE_PIECE = 8 * 1024;
/** Writes shorter than this are parsed as they are: too few lines to gain from collapseScrolled. */
export const COLLAPSE_MIN = 128 * 1024;

/**
 * A headless terminal emulator: bytes from a PTY in, what a human would see
 * out. xterm may parse a write later (queued behind others, or in 12 ms
 * slices), so read the screen only after write() has resolved.
 */
export class Screen {
  private readonly term: Terminal;
  /**
   * xterm's buffer namespace, kept: the `buffer` getter checks the proposed-API
   * option through xterm's options proxy on every call, a tenth of a drill's
   * per-look cost on a spinner.
   */
  private readonly buffers: Terminal['buffer'];
  private readonly pending = new Set<() => void>();
  private cached: ScreenSnapshot | undefined;
  /** Moves on every write handed to xterm and every resize: a snapshot's lazy styles are good only while it stands. */
  private generation = 0;
  private disposed = false;
  private serializer: InstanceType<typeof serializeAddon.SerializeAddon> | undefined;
  private readonly dirty: DirtyRows;
  /** What the last snapshot read, and where it read it from (buffer, page, width; its rows give the height). */
  private last: LastRead = { rows: [], styles: [], fingerprint: '', alternate: false, baseY: -1, cols: 0 };
  /** The hashes of the last snapshot's rows, and fingerprintRows's fold after each of them. */
  private hashes: number[] = [];
  private folds: number[] = [];
  private scrolled = 0;

  /** `piece`: the most of a write xterm gets at once, and so the most parsed in one go (a drill's whole write, or LIVE_PIECE). */
  constructor(
    cols: number,
    rows: number,
    private readonly piece = WHOLE,
  ) {
    checkSize(cols, rows);
    this.term = new xterm.Terminal({ cols, rows, scrollback: SCROLLBACK, allowProposedApi: true });
    this.buffers = this.term.buffer;
    this.dirty = new DirtyRows(this.term);
    this.term.onWriteParsed(() => {
      this.cached = undefined;
    });
    // Once per line scrolled up (a line feed at the bottom, a scroll region's too): a counter, it costs nothing beside the parse.
    this.term.onScroll(() => void this.scrolled++);
  }

  /** Lines scrolled up since the screen was made (xterm's scroll events): a mark for scrolledSince. */
  get scrolledLines(): number {
    return this.scrolled;
  }

  /** Whether a line has scrolled up since `mark` (an earlier scrolledLines). */
  scrolledSince(mark: number): boolean {
    return this.scrolled !== mark;
  }

  /**
   * Answers xterm gives to the program's own queries (cursor position,
   * device attributes, DECRQSS, DECRQM, window size). Some TUIs stall or fail
   * at startup when a cursor-position request goes unanswered; a reply the
   * program can't read as one (its terminal in canonical mode) hides its
   * question instead: the caller decides which go (QueryReplies).
   */
  onReply(cb: (data: string) => void): { dispose(): void } {
    return this.term.onData((data) => {
      if (data !== '') cb(data);
    });
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Resolves once xterm has parsed `data`; never rejects, whatever the bytes. */
  write(data: Flood): Promise<void> {
    return this.tryWrite(data) ?? Promise.resolve();
  }

  /**
   * As write(), but undefined when xterm parsed `data` before returning (a
   * small write into an idle parser, see below): a drill looks at the screen
   * after most events of a spinner, and needs no promise to wait on for one.
   */
  tryWrite(data: Flood): Promise<void> | undefined {
    if (this.disposed || data.length === 0) return undefined;
    data = this.collapse(data);
    let parsed = false;
    let resolve: (() => void) | undefined;
    const done = (): void => {
      this.pending.delete(done);
      if (!this.disposed) this.cached = undefined;
      parsed = true;
      resolve?.();
    };
    this.pending.add(done);
    this.generation++;
    // xterm parses on a setTimeout(0), which Node clamps to 1 ms: one write
    // per event would cap drills at ~1000 events/s. A write that follows
    // "user input" into an idle buffer is parsed synchronously instead (its
    // typing-latency fast path); empty input has no other effect.
    this.term.input('', true);
    // A big write goes in pieces: xterm parses queued pieces in 12 ms slices
    // between other work, where one piece of megabytes would hold the thread.
    for (let at = 0; at < data.length; at += this.piece) {
      const end = Math.min(data.length, at + this.piece);
      this.term.write(at === 0 && end === data.length ? data : data.slice(at, end), end === data.length ? done : undefined);
    }
    return parsed ? undefined : new Promise((r) => (resolve = r));
  }

  /**
   * `data` without the lines that would scroll out of this terminal's memory
   * unseen if it were written now (collapseScrolled), when that is safe;
   * else `data` itself. A writer holding output back may call it as it goes.
   */
  collapse<T extends Flood>(data: T): T {
    return data.length >= COLLAPSE_MIN && this.canCollapse ? collapseScrolled(data, linesToKeep(this.term.rows, SCROLLBACK)) : data;
  }

  /**
   * Whether a flood may skip its scrolled-off lines (collapseScrolled): xterm
   * idle in its parser's ground state (not inside an escape sequence a previous
   * write began), scrolling the whole screen, not inserting. Read from xterm's
   * internals (@xterm/headless is pinned); when they are not there, never.
   */
  get canCollapse(): boolean {
    const core = (this.term as unknown as { _core?: XtermCore })._core;
    const buffer = core?.buffer;
    return (
      this.pending.size === 0 &&
      core?._inputHandler?._parser?.currentState === 0 &&
      buffer?.scrollTop === 0 &&
      buffer.scrollBottom === this.term.rows - 1 &&
      !this.term.modes.insertMode &&
      !this.term.modes.originMode
    );
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (this.disposed) return;
    this.term.resize(cols, rows);
    this.dirty.markAll();
    this.generation++;
    this.cached = undefined;
  }

  /**
   * The visible page of the active buffer (never scrollback). Cached until
   * the next parse or resize, so polling an idle screen costs nothing.
   */
  snapshot(): ScreenSnapshot {
    if (this.cached !== undefined) return this.cached;
    const buf = this.buffers.active;
    const cols = this.term.cols;
    const height = this.term.rows;
    // baseY is the top of the bottom page; viewportY would follow a scrolled view.
    const baseY = buf.baseY;
    const alternate = buf.type === 'alternate';
    // Rows xterm did not mark for a redraw are as the last snapshot read them (text and style), if it read the same page.
    const last = this.last;
    const dirty = this.dirty.take();
    const same = dirty !== 'all' && last.alternate === alternate && last.baseY === baseY && last.cols === cols && last.rows.length === height;
    // Copied whole, then the dirty rows read: a spinner's look reads one row of forty.
    const rows = same ? last.rows.slice() : new Array<string>(height);
    const styles = same ? last.styles.slice() : new Array<string | null | undefined>(height);
    // The rows' hashes, and the fingerprint's fold after each row, are the screen's own (no snapshot holds them).
    if (!same) [this.hashes, this.folds] = [new Array<number>(height), new Array<number>(height)];
    const { hashes, folds } = this;
    const from = !same ? 0 : dirty === null ? 0 : Math.max(0, dirty[0]);
    const to = !same ? height - 1 : dirty === null ? -1 : Math.min(height - 1, dirty[1]);
    for (let y = from; y <= to; y++) {
      const row = trimSpaces(buf.getLine(baseY + y)?.translateToString(true) ?? '');
      rows[y] = row;
      hashes[y] = rowHash(row);
      styles[y] = undefined;
    }
    let fingerprint = last.fingerprint;
    if (!same || from <= to) {
      // Folded again from the first row read: a spinner on the bottom row folds one.
      let h = from === 0 ? FOLD_START : folds[from - 1]!;
      for (let y = from; y < height; y++) folds[y] = h = foldRow(h, hashes[y]!);
      fingerprint = fingerprintOf(h);
    }
    this.last = { rows, styles, fingerprint, alternate, baseY, cols };
    const generation = this.generation;
    // A spinner redraws one row: the rows above keep the style read on an earlier look (a dialog check reads up to 24).
    const styleOf = (y: number): string | null => {
      const known = styles[y];
      if (known !== undefined) return known;
      const line = generation === this.generation && !this.disposed && rows[y] ? buf.getLine(baseY + y) : undefined;
      const style = line ? rowStyle(line, cols, buf.getNullCell()) : null;
      if (generation === this.generation) styles[y] = style;
      return style;
    };
    this.cached = {
      rows,
      cols,
      // cursorX reaches `cols` while a wrap is pending after the last column.
      cursor: { x: Math.min(buf.cursorX, cols - 1), y: buf.cursorY },
      alternate,
      fingerprint,
      styleOf,
    };
    return this.cached;
  }

  /** Up to n rows ending at the last non-blank row; [] on a blank screen. */
  trailingLines(n: number): string[] {
    const rows = this.snapshot().rows;
    const last = lastNonBlankRow(rows);
    if (last < 0 || n <= 0) return [];
    return rows.slice(Math.max(0, last - Math.floor(n) + 1), last + 1);
  }

  /** The visible rows as text, trailing blank rows dropped. */
  text(): string {
    const rows = this.snapshot().rows;
    return rows.slice(0, lastNonBlankRow(rows) + 1).join('\n');
  }

  /**
   * The visible screen as the escape sequences that redraw it (the web
   * terminal's first frame). xterm runs a write's callback in line, before it
   * parses the next write: so this holds exactly the bytes written before the
   * call, and a listener that subscribed to output before calling it misses
   * nothing and sees nothing twice.
   */
  serialize(): Promise<string> {
    if (this.disposed) return Promise.resolve(this.text().replace(/\n/g, '\r\n'));
    if (!this.serializer) {
      this.serializer = new serializeAddon.SerializeAddon();
      this.term.loadAddon(this.serializer);
    }
    const serializer = this.serializer;
    return new Promise((resolve) => {
      // Disposed before xterm got to it: the last picture, as text.
      const done = (): void => {
        this.pending.delete(done);
        resolve(this.disposed ? this.text().replace(/\n/g, '\r\n') : serializer.serialize({ scrollback: 0 }));
      };
      this.pending.add(done);
      this.term.write('', done);
    });
  }

  /** Idempotent; writes still waiting on the parser resolve at once. */
  dispose(): void {
    if (this.disposed) return;
    // The last picture stays whole, styles too: they are read from the terminal, which goes now.
    const last = this.snapshot();
    for (let y = 0; y < last.rows.length; y++) last.styleOf?.(y);
    this.disposed = true;
    for (const done of [...this.pending]) done();
    // Keep the last picture readable: the disposed terminal's buffer is not.
    this.snapshot();
    this.term.dispose();
  }
}

interface LastRead {
  readonly rows: readonly string[];
  /** Filled as they are asked for (undefined: not read). */
  readonly styles: ReadonlyArray<string | null | undefined>;
  readonly fingerprint: string;
  readonly alternate: boolean;
  readonly baseY: number;
  readonly cols: number;
}

/** The few xterm internals canCollapse reads. */
interface XtermCore {
  _inputHandler?: { _parser?: { currentState?: number } };
  buffer?: { scrollTop?: number; scrollBottom?: number };
}

function checkSize(cols: number, rows: number): void {
  const ok = (n: number) => Number.isInteger(n) && n > 0;
  if (!ok(cols) || !ok(rows)) {
    throw new InputError(`invalid screen size ${cols}x${rows}; expected positive whole numbers of columns and rows`);
  }
}
