/**
 * Jobs' last-activity stamps, written to the board together. Each board
 * commit waits for the disk on the daemon's thread (better-sqlite3 is
 * synchronous; synchronous=FULL adds an fsync), and on a busy disk one
 * wait took 0.4-0.9 s in the scale benchmark (README: Performance, Not
 * met). A stamp per moving job every 2 s was most of those commits: fifty
 * a second for a hundred busy jobs. Here the stamps of every job that moved
 * go in one commit every ACTIVITY_WRITE_MS; transitions still commit at
 * once. A stamp is at most that much later on the board than before.
 */
import type { Board } from '../board/board.js';
import { sharedBeat, type Beat, type BeatTask } from '../util/beat.js';

// A job's heartbeat on the board need not be finer; each flush is one wait for the disk.
export const ACTIVITY_WRITE_MS = 2_000;

export class ActivityWrites {
  private readonly pending = new Map<string, number>();
  private task: BeatTask | undefined;

  constructor(
    private readonly board: Board,
    private readonly onLog: (msg: string, fields?: object) => void,
    private readonly beat: Beat = sharedBeat,
  ) {}

  /** Job `id` showed activity at `at` (ms): written with the next flush. */
  touch(id: string, at: number): void {
    if (at > (this.pending.get(id) ?? -Infinity)) this.pending.set(id, at);
    this.task ??= this.beat.every(ACTIVITY_WRITE_MS, () => {
      this.task = undefined;
      this.flush();
      return undefined;
    });
  }

  /** Writes job `id`'s pending stamp now (it ended: its row is final with its done move). */
  settle(id: string): void {
    const at = this.pending.get(id);
    if (at === undefined) return;
    this.pending.delete(id);
    this.board.update(id, { last_activity: new Date(at).toISOString() });
  }

  /** Writes what is pending in one commit. A job the board no longer has is skipped, not the batch. */
  flush(): void {
    if (this.pending.size === 0) return;
    const stamps = [...this.pending];
    this.pending.clear();
    try {
      this.board.batch(() => {
        for (const [id, at] of stamps) {
          try {
            this.board.update(id, { last_activity: new Date(at).toISOString() });
          } catch (e) {
            this.onLog('last activity not written', { job: id, err: String(e) });
          }
        }
      });
    } catch (e) {
      this.onLog('last activity not written', { jobs: stamps.length, err: String(e) });
    }
  }

  /** Flushes and stops: before the board closes. */
  dispose(): void {
    this.task?.dispose();
    this.task = undefined;
    this.flush();
  }
}
