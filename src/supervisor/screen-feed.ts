/**
 * Feeds PTY output into the job's Screen and shows the watchdog a snapshot
 * once xterm has parsed it — at most every SCREEN_SAMPLE_MS while output
 * streams, and always at the end of a burst (a trailing timer), as drills do.
 */
import type { Clock } from '../core/clock.js';
import type { ScreenSnapshot } from '../core/screen-snapshot.js';
import { SCREEN_SAMPLE_MS } from '../core/watchdog-types.js';
import type { Screen } from '../screen/screen.js';

export class ScreenFeed {
  private last: Promise<void> = Promise.resolve();
  private lastSeen = -Infinity;
  private pending = false;
  private trailing: NodeJS.Timeout | undefined;

  constructor(
    private readonly screen: Screen,
    private readonly clock: Clock,
    private readonly onSnapshot: (snap: ScreenSnapshot) => void,
  ) {}

  push(data: string): void {
    this.last = this.screen.write(data).then(() => this.parsed());
  }

  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
    this.pending = true;
    this.flush();
  }

  /** Resolves when everything pushed so far is on the screen and shown to the watchdog. */
  async settled(): Promise<void> {
    await this.last;
    this.flush();
  }

  dispose(): void {
    clearTimeout(this.trailing);
  }

  private parsed(): void {
    this.pending = true;
    const wait = this.lastSeen + SCREEN_SAMPLE_MS - this.clock.now();
    if (wait <= 0) this.flush();
    else this.trailing ??= setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    clearTimeout(this.trailing);
    this.trailing = undefined;
    if (!this.pending) return;
    this.pending = false;
    this.lastSeen = this.clock.now();
    this.onSnapshot(this.screen.snapshot());
  }
}
