/**
 * The watchdog's clocks of activity: when the screen last changed and last
 * showed something new (novelty.ts), whether the process tree works and
 * since when it is idle, the tool calls (tool-tracker.ts) and the agent's
 * own word that it works. Quiet, hang and "something moves" are read here;
 * the decisions stay in watchdog.ts. Pure and clock-free: times come in.
 */
import type { StillnessView } from './agent-wait.js';
import { ScreenNovelty } from './novelty.js';
import type { ToolEvent } from './tool-events.js';
import { ToolTracker } from './tool-tracker.js';

export class Progress {
  readonly tools = new ToolTracker();
  private readonly novelty = new ScreenNovelty();
  private startedAt = 0;
  lastScreenChange = 0;
  /** The last time the screen showed a state it had not shown recently: quiet and progress count from here. */
  lastNewScreen = 0;
  lastOutputAt: number | undefined;
  procBusy = false;
  procIdleSince = 0;
  /** The agent last said it works (a hook at a tool call): progress, like a tool event. */
  agentWorkedAt = -Infinity;
  /** The next screen is a redraw for a new watcher (resume), not news. */
  private redrawn = false;
  /** The last progress the board knew when this watcher took over; reported, never decided on. */
  private known = -Infinity;

  start(now: number): void {
    this.startedAt = now;
    this.lastScreenChange = now;
    this.lastNewScreen = now;
    this.procIdleSince = now;
  }

  /**
   * Takes over, at `now`, a job another daemon watched, whose last progress
   * was at `known`. Decisions count from `now`: what happened while no
   * daemon watched (output the host kept, a flood that ended) is unknown,
   * so no quiet or hang is declared sooner than one threshold after the
   * takeover. The progress reported (ACTIVE) stays `known` until something
   * new happens: the first screen is the same screen redrawn, not news.
   */
  resume(known: number, now: number): void {
    this.start(now);
    this.known = known;
    this.redrawn = true;
  }

  /** A screen whose fingerprint changed: true when it shows something not shown recently (a blink is not). */
  screenChanged(fingerprint: string, now: number): boolean {
    if (this.redrawn) {
      this.redrawn = false;
      this.novelty.observe(fingerprint, now);
      return false;
    }
    this.lastScreenChange = now;
    const fresh = this.novelty.observe(fingerprint, now);
    if (fresh) this.lastNewScreen = now;
    return fresh;
  }

  proc(busy: boolean, now: number): void {
    if (this.procBusy && !busy) this.procIdleSince = now;
    this.procBusy = busy;
  }

  tool(e: ToolEvent, now: number): void {
    this.tools.observe(e, now);
  }

  /** A tool call or a busy process tree: the program works, whatever its screen shows. */
  somethingMoves(): boolean {
    return this.tools.inFlight > 0 || this.procBusy;
  }

  /**
   * A tool call in flight does not hold a dialog back: an agent's permission
   * dialog always has one (the call it asks about, already in its
   * transcript). A call that finished since the dialog appeared does.
   */
  toolFinishedSince(t: number): boolean {
    return (this.tools.lastFinishAt ?? -Infinity) >= t;
  }

  /** The last sign of progress; +Infinity while the process tree works. */
  lastProgress(): number {
    const proc = this.procBusy ? Infinity : this.procIdleSince;
    return Math.max(this.startedAt, this.lastNewScreen, this.tools.lastEventAt ?? -Infinity, proc, this.agentWorkedAt);
  }

  /** The last sign of progress as a person reads it (ACTIVE): across a takeover, the one known then, until something new. */
  reportedProgress(): number {
    if (this.known === -Infinity) return this.lastProgress();
    if (this.procBusy) return Infinity;
    const since = (t: number) => (t > this.startedAt ? t : -Infinity);
    return Math.max(this.known, since(this.lastNewScreen), since(this.procIdleSince), this.tools.lastEventAt ?? -Infinity, this.agentWorkedAt);
  }

  /** A screen that kept changing through old states since it last showed a new one: a retry loop, a spinner on a stuck step. */
  cycling(): boolean {
    return this.lastScreenChange > this.lastNewScreen;
  }

  stillness(settleMs: number): StillnessView {
    return { settleMs, lastNewScreen: this.lastNewScreen, procBusy: this.procBusy, procIdleSince: this.procIdleSince, lastToolFinish: this.tools.lastFinishAt ?? -Infinity };
  }
}
