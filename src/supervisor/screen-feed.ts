/**
 * Feeds PTY output into the job's Screen and shows the watchdog a snapshot
 * once xterm has parsed it, when nextLook (src/core/screen-looks) says a look
 * is due: every SCREEN_SAMPLE_MS while output streams, every SCROLL_LOOK_MS
 * while output scrolls by, and at the end of a burst (a trailing timer),
 * as drills do.
 *
 * Output waits, unparsed, for the moment the screen is next looked at: the
 * watchdog sees nothing in between, and a flood parsed as one batch lets the
 * Screen skip the lines that scroll away unseen (collapseScrolled), which a
 * chunk at a time never could. Readers of the screen (show, the web
 * terminal) go through view(), which parses what waits first.
 *
 * Output is held as the bytes that came (xterm decodes UTF-8 itself): a
 * flood turned into strings was promoted out of V8's young generation
 * whenever a scavenge caught it held, and stayed until a full GC.
 */
import type { Clock } from '../core/clock.js';
import type { ScreenSnapshot } from '../core/screen-snapshot.js';
import { nextLook } from '../core/screen-looks.js';
import { SCREEN_SAMPLE_MS } from '../core/watchdog-types.js';
import type { Screen } from '../screen/screen.js';
import type { ScreenView } from './job-spec.js';
import { HeldBytes } from './held-bytes.js';

/**
 * Output held (bytes) past which it is parsed at once, or, while
 * xterm still parses the last batch, the source is paused (flow) until it
 * is done: xterm throws output away (and throws) past 50 MB queued.
 */
const MAX_UNPARSED = 16_000_000;
/**
 * A flood is collapsed as it comes, each time this much more is held: one
 * pass over 7 MB at the sample held the thread 25 ms, and the PTY host's
 * flow control then held the job; 1 MB at a time is 3 ms.
 */
const COMPACT_EVERY = 1_000_000;

export class ScreenFeed {
  private last: Promise<void> = Promise.resolve();
  private lastSeen = -Infinity;
  private lastOutput = -Infinity;
  /** The screen's scrolledLines at the last look. */
  private scrollAtLook = 0;
  /** Output scrolled the screen since the last look: known once what came was parsed. */
  private scrolled = false;
  private readonly unparsed = new HeldBytes();
  private trailing: NodeJS.Timeout | undefined;
  /** A parse is in flight and its look will follow. */
  private sampling = false;
  private disposed = false;
  /** Parsed since the watchdog last saw the screen. */
  private pendingShow = false;
  /** How much of what is held has been through compact(): the rest is new. */
  private compactedLength = 0;
  /** What is held is known not to be a plain flood: compacting again would read it all again for nothing. */
  private notPlain = false;
  /** A look that must not wait (a resize) is owed, whatever scrolled. */
  private forced = false;
  /** A batch handed to xterm is still being parsed: what comes meanwhile is held, to be collapsed and written after it. */
  private writing = false;
  private held = false;

  constructor(
    private readonly screen: Screen,
    private readonly clock: Clock,
    private readonly onSnapshot: (snap: ScreenSnapshot) => void,
    /** The watchdog's next deadline: a look is not put off past a decision. */
    private readonly deadline: () => number | undefined = () => undefined,
    /** Holds the output's source while more than MAX_UNPARSED waits behind a batch xterm still parses. */
    private readonly flow?: { pause(): void; resume(): void },
  ) {}

  push(data: Buffer): void {
    this.unparsed.append(data);
    this.lastOutput = this.clock.now();
    if (this.unparsed.length - this.compactedLength >= COMPACT_EVERY) this.compact();
    if (this.unparsed.length < MAX_UNPARSED) return this.schedule();
    if (!this.writing) return this.sample();
    // xterm still has the last batch: what is held waits for it (written()), and so does the source.
    if (!this.held) {
      this.held = true;
      this.flow?.pause();
    }
  }

  resize(cols: number, rows: number): void {
    this.parse();
    this.screen.resize(cols, rows);
    this.pendingShow = true;
    this.forced = true;
    this.sample();
  }

  /** Resolves when everything pushed so far is on the screen and shown to the watchdog. */
  async settled(): Promise<void> {
    do {
      this.parse();
      await this.last;
    } while (this.unparsed.length > 0 || this.writing);
    this.show();
  }

  /** The screen for its readers: what waits is parsed before each read. */
  view(): ScreenView {
    const screen = this.screen;
    const feed = this;
    return {
      get cols() {
        return screen.cols;
      },
      get rows() {
        return screen.rows;
      },
      text: () => (feed.parse(), screen.text()),
      snapshot: () => (feed.parse(), screen.snapshot()),
      serialize: () => (feed.parse(), screen.serialize()),
    };
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.trailing);
  }

  private due(): number {
    return nextLook({ lastLook: this.lastSeen, lastOutput: this.lastOutput, scrolled: this.scrolled, deadline: this.deadline() });
  }

  /** Samples now if a look is due, else once it is (one timer, moved on when it fires early). */
  private schedule(): void {
    // The look in flight schedules whatever came meanwhile.
    if (this.sampling || this.disposed) return;
    const wait = this.due() - this.clock.now();
    if (wait <= 0) this.sample();
    else
      this.trailing ??= setTimeout(() => {
        this.trailing = undefined;
        this.schedule();
      }, wait);
  }

  /**
   * Parses what waits, then shows the watchdog the screen once that is done
   * (lookIfDue; a forced look, a resize's, never waits).
   */
  private sample(): void {
    clearTimeout(this.trailing);
    this.trailing = undefined;
    this.parse();
    this.sampling = true;
    const asked = this.clock.now();
    this.last = this.last.then(() => this.look(asked));
  }

  private look(asked: number): void {
    this.sampling = false;
    // A batch handed to xterm since this look was asked for (written() of the last one starts the next)
    // is parsed only in part: its look comes once it is written (written()), or the watchdog keeps a torn screen.
    if (this.writing) return;
    this.lookIfDue(asked);
    if (this.pendingShow || this.unparsed.length > 0) this.schedule();
    // The burst is over: its buffers go, so a job that flooded once does not keep megabytes.
    else if (this.clock.now() - this.lastOutput >= SCREEN_SAMPLE_MS) this.unparsed.release();
  }

  /**
   * Hands what waits to xterm as one write (a small one is parsed at once;
   * see Screen.write), once xterm is done with the last: a flood then
   * collapses (Screen.collapse needs xterm idle) instead of piling up raw.
   */
  private parse(): void {
    if (this.unparsed.length === 0 || this.writing) return;
    const data = this.unparsed.take();
    this.compactedLength = 0;
    this.notPlain = false;
    this.pendingShow = true;
    this.writing = true;
    const written = this.screen.write(data).then(() => this.written());
    this.last = this.last.then(() => written);
  }

  /** Shows the parsed screen unless what was parsed scrolled the screen and the look can wait (a forced look never waits). */
  private lookIfDue(asked: number): void {
    if (!this.pendingShow) return;
    this.scrolled ||= this.screen.scrolledSince(this.scrollAtLook);
    if (this.forced || !this.scrolled || this.due() <= asked) {
      this.lastSeen = asked;
      this.show();
    }
  }

  private written(): void {
    this.writing = false;
    // A held source waits for what is held to be written: at once, not at the next look. Between the
    // two batches the screen is whole: a look due now is taken here, or a flood that never lets up
    // (nothing in it to collapse) would leave every look to land mid-batch and none to be taken.
    if (this.held || this.unparsed.length >= MAX_UNPARSED) {
      if (this.clock.now() >= this.due()) this.lookIfDue(this.clock.now());
      this.parse();
    }
    if (this.held && this.unparsed.length < MAX_UNPARSED / 4) {
      this.held = false;
      this.flow?.resume();
    }
    if (this.unparsed.length > 0 || this.pendingShow) this.schedule();
  }

  /** What is held, collapsed (Screen.collapse): a plain flood's middle goes now, in small passes. */
  private compact(): void {
    // A batch still being parsed, a scroll region, insert mode: not now, but maybe at the next MB.
    if (this.notPlain || !this.screen.canCollapse) return;
    const data = this.unparsed.view();
    const kept = this.screen.collapse(data);
    if (kept === data) this.notPlain = true;
    else this.unparsed.replace(kept);
    this.compactedLength = kept.length;
  }

  private show(): void {
    if (!this.pendingShow) return;
    this.pendingShow = false;
    this.forced = false;
    this.scrollAtLook = this.screen.scrolledLines;
    this.scrolled = false;
    this.onSnapshot(this.screen.snapshot());
  }
}
