/**
 * Feeds PTY output into the job's Screen and hands the watchdog a snapshot
 * once xterm has parsed it. Writes complete in order; when output arrives
 * faster than it is parsed, only the newest parsed state is snapshotted.
 */
import type { ScreenSnapshot } from '../core/screen-snapshot.js';
import type { Screen } from '../screen/screen.js';

export class ScreenFeed {
  private written = 0;
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly screen: Screen,
    private readonly onSnapshot: (snap: ScreenSnapshot) => void,
  ) {}

  push(data: string): void {
    const n = ++this.written;
    this.last = this.screen.write(data).then(() => {
      if (n === this.written) this.onSnapshot(this.screen.snapshot());
    });
  }

  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
    this.onSnapshot(this.screen.snapshot());
  }

  /** Resolves when everything pushed so far is on the screen. */
  settled(): Promise<void> {
    return this.last;
  }
}
