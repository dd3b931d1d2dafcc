/**
 * One timer for many periodic checks. A hundred jobs each polling once a
 * second on its own timer wake the process a hundred times a second, at
 * phases that never line up; that wake-up, not the check, was most of an
 * idle daemon's cost. Here every task is due on a shared grid, so all the
 * checks that fall due together run in one wake-up, and the single timer is
 * armed only for the earliest of them.
 *
 * The grid is coarser where a task's period allows (gridPoint): a task
 * every second runs on whole seconds, with the daemon's tick and the loop
 * watch, and a backed-off check, every 8 to 30 s, on even seconds, so it
 * rides a wake-up the process makes anyway. A task lands on the grid point
 * nearest its time: rounding up, as a timer fires a little late, made a 1 s
 * task run every 1.25 s.
 */
export interface BeatTask {
  /** Runs it at the grid point nearest `ms` from now (sooner or later than planned). */
  reschedule(ms: number): void;
  /** When it next runs, in ms since the epoch; undefined once disposed. */
  readonly due: number | undefined;
  dispose(): void;
}

/**
 * `run` returns the ms until it should run again, or undefined to stop.
 * It must not throw: an error is reported as a process warning and the task stops.
 */
export type BeatRun = () => number | undefined;

const GRID_MS = 250;
/** The most one wake-up runs before it lets I/O and timers in. */
const SLICE_MS = 5;
/**
 * Coarser grids than the beat's own, coarsest first, each with how far from
 * its time (a share of its period) a task may be moved onto it. Whole
 * seconds take up to half a period, so a task every second, wherever it
 * started, is on them from its second run on.
 */
const COARSE_GRIDS: ReadonlyArray<readonly [ms: number, share: number]> = [
  [2_000, 1 / 4],
  [1_000, 1 / 2],
];

/**
 * Where a task due at `t` (`ms` from now) runs: on the coarsest grid with a
 * point close enough to `t` (COARSE_GRIDS), else on the beat's own grid (the
 * nearest point; the next one below a step, so a task asked for soon does
 * not run at once).
 */
export function gridPoint(t: number, ms: number, finest: number): number {
  for (const [g, share] of COARSE_GRIDS) {
    if (g <= finest) break;
    const at = Math.round(t / g) * g;
    if (Math.abs(at - t) <= ms * share) return at;
  }
  return (ms < finest ? Math.ceil(t / finest) : Math.round(t / finest)) * finest;
}

export class Beat {
  private readonly tasks = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;

  constructor(
    private readonly gridMs = GRID_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `run` `firstMs` from now (on the grid), then as often as it asks. */
  every(firstMs: number, run: BeatRun): BeatTask {
    const entry = new Entry(this, run);
    this.tasks.add(entry);
    entry.reschedule(firstMs);
    return entry;
  }

  /** @internal */
  place(entry: Entry, ms: number): void {
    ms = Math.max(0, ms);
    entry.at = gridPoint(this.now() + ms, ms, this.gridMs);
    if (entry.at < this.armedFor) this.arm(entry.at);
  }

  /** @internal */
  remove(entry: Entry): void {
    this.tasks.delete(entry);
    if (this.tasks.size === 0) this.disarm();
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
    // The tasks' owners keep the process alive; a beat alone never does.
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    // A timer may fire a hair early: whatever is due within half a grid step runs now.
    const until = this.now() + this.gridMs / 2;
    this.runDue([...this.tasks].filter((e) => e.at <= until), until);
  }

  /** Runs what is due, letting the event loop in every SLICE_MS (a hundred busy jobs' checks share a whole second). */
  private runDue(due: readonly Entry[], until: number, from = 0): void {
    const start = performance.now();
    for (let i = from; i < due.length; i++) {
      const entry = due[i]!;
      // Run already (a wake-up while this one waited) and due again later: not now.
      if (entry.at <= until && this.tasks.has(entry)) entry.run();
      if (i + 1 < due.length && performance.now() - start >= SLICE_MS) {
        setImmediate(() => this.runDue(due, until, i + 1));
        return;
      }
    }
    let next = Infinity;
    for (const entry of this.tasks) next = Math.min(next, entry.at);
    if (next < this.armedFor && Number.isFinite(next)) this.arm(next);
  }
}

class Entry implements BeatTask {
  at = Infinity;
  private disposed = false;

  constructor(
    private readonly beat: Beat,
    private readonly task: BeatRun,
  ) {}

  get due(): number | undefined {
    return this.disposed ? undefined : this.at;
  }

  reschedule(ms: number): void {
    if (!this.disposed) this.beat.place(this, ms);
  }

  run(): void {
    // Not due again unless it asks: a task that reschedules itself from inside keeps that.
    this.at = Infinity;
    let next: number | undefined;
    try {
      next = this.task();
    } catch (e) {
      process.emitWarning(`a periodic check failed and stopped: ${e instanceof Error ? e.message : String(e)}`);
      next = undefined;
    }
    if (this.disposed) return;
    if (next === undefined) {
      if (this.at === Infinity) this.dispose();
    } else if (this.at === Infinity) this.beat.place(this, next);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.beat.remove(this);
  }
}

/** The process's one beat: the daemon's jobs share it. */
export const sharedBeat = new Beat();

const fine = new Map<number, Beat>();

/** The shared beat, or for a period finer than its grid (tests), a beat of that grain. */
export function beatFor(periodMs: number): Beat {
  if (periodMs >= GRID_MS) return sharedBeat;
  let beat = fine.get(periodMs);
  if (!beat) fine.set(periodMs, (beat = new Beat(Math.max(1, periodMs))));
  return beat;
}

/**
 * The next period of a check that backs off while it learns nothing: back
 * to `baseMs` once something changed, else twice the last, up to `maxMs`.
 * The /proc sampler, the file safety polls and the budget looks all pace
 * themselves this way, so a hundred quiet jobs cost next to nothing.
 */
export function backOff(lastMs: number, changed: boolean, baseMs: number, maxMs: number): number {
  return changed ? baseMs : Math.min(maxMs, lastMs * 2);
}
