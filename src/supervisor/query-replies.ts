/**
 * Replies to a program's terminal queries (the headless screen's, or those
 * a person's real terminal sends with their keys), passed to the program
 * only when it can read them as one: its terminal out of canonical mode, as
 * vim and every TUI that queries set it first. In canonical mode a reply
 * can't be read without Enter: it sits in the line buffer, the tty echoes it
 * after the program's question (hiding it from the rules), and it becomes
 * the start of the person's answer (`\x1b[?1;2cy` for `y`). There it is
 * dropped. A mode that can't be read (no stty, fd 0 not a terminal) keeps
 * the old way: the reply goes.
 */
import type { TtyMode } from '../core/input-wait.js';

export class QueryReplies {
  private pending = '';
  private reading = false;
  private disposed = false;
  private dropped = 0;

  constructor(
    /** The job's terminal mode, read afresh (off the event loop) for each batch of replies. */
    private readonly mode: () => Promise<TtyMode | undefined>,
    private readonly write: (reply: string) => void,
    /** A batch was dropped: told the first time only, a program may query in a loop. */
    private readonly onFirstDrop?: (reply: string) => void,
  ) {}

  /** Replies that come while the mode is read join one batch, in order. */
  reply(data: string): void {
    if (this.disposed) return;
    this.pending += data;
    if (!this.reading) void this.flush();
  }

  /** How many batches were dropped. */
  get droppedCount(): number {
    return this.dropped;
  }

  dispose(): void {
    this.disposed = true;
    this.pending = '';
  }

  private async flush(): Promise<void> {
    this.reading = true;
    try {
      while (this.pending !== '' && !this.disposed) {
        const mode = await this.mode().catch(() => undefined);
        const batch = this.pending;
        this.pending = '';
        if (this.disposed) return;
        if (mode?.canonical !== true) this.write(batch);
        else if (this.dropped++ === 0) this.onFirstDrop?.(batch);
      }
    } finally {
      this.reading = false;
    }
  }
}
