/** Which tool calls are in flight, paired by id when given, else by name. */
import type { ToolEvent } from './tool-events.js';

export class ToolTracker {
  private readonly open = new Map<string, number>();
  private last: number | undefined;
  private lastFinish: number | undefined;

  get lastEventAt(): number | undefined {
    return this.last;
  }

  /** A finished call is proof the agent went on; a started one may be the very call a dialog asks about. */
  get lastFinishAt(): number | undefined {
    return this.lastFinish;
  }

  get inFlight(): number {
    let n = 0;
    for (const c of this.open.values()) n += c;
    return n;
  }

  inFlightNames(): string[] {
    return [...this.open.keys()].map((k) => k.slice(k.indexOf(':') + 1));
  }

  observe(e: ToolEvent, now: number): void {
    this.last = now;
    if (e.phase === 'finish') this.lastFinish = now;
    const key = e.id !== undefined ? `${e.id}:${e.name}` : `:${e.name}`;
    const count = this.open.get(key) ?? 0;
    if (e.phase === 'start') {
      this.open.set(key, count + 1);
    } else if (count > 1) {
      this.open.set(key, count - 1);
    } else {
      // A finish without a start (file rotated, watcher joined late) just closes nothing.
      this.open.delete(key);
    }
  }
}
