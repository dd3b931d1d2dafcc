/**
 * How late the daemon's one thread gets to its timers: every job, the
 * control socket and the pager share it, so its worst delay is how long any
 * of them can be kept waiting. Reported by `status`.
 *
 * The histogram's 10 ms timer wakes the process 100 times a second, which
 * alone costs more than a hundred idle jobs. So it watches only while the
 * loop works: it stops after IDLE_CHECKS seconds in a row under
 * STOP_UTILIZATION of event-loop use, and starts again after BUSY_CHECKS
 * seconds in a row over START_UTILIZATION (output, a command, a page). The
 * histogram's own timer takes a share of the loop's time, so with one
 * threshold watching kept itself going; and a hundred idle jobs' process
 * checks fall on one beat: on a slow machine that one second in thirty
 * passed the start threshold, and each such second kept the histogram on
 * for ten more. What it cannot see: a stall while it sleeps (it wakes on
 * the use that stall adds, after it).
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import { sharedBeat, type Beat, type BeatTask } from '../util/beat.js';

export interface LoopDelayReport {
  max_ms: number;
  p99_ms: number;
  mean_ms: number;
  /** Samples taken (one per RESOLUTION_MS the loop was free to take one, while it watched: see above). */
  samples: number;
  /** ISO time the figures are counted from: the daemon's start, or the last reset. */
  since: string;
}

/** Fine enough to see a 20 ms stall, coarse enough to cost nothing. */
const RESOLUTION_MS = 10;
const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** Shares of a second the loop spent working (event-loop utilisation). */
const STOP_UTILIZATION = 0.03;
const START_UTILIZATION = 0.02;
const IDLE_CHECKS = 10;
/** Busy seconds in a row that start it: one alone is a beat (a hundred idle jobs' checks falling on it), not work. */
const BUSY_CHECKS = 2;

export interface LoopDelayOptions {
  beat?: Beat;
  /** Event-loop utilisation (0..1) since the previous call. */
  utilization?: () => number;
  /** How often utilisation is looked at (1 s). */
  checkMs?: number;
}

export class LoopDelay {
  /** The histogram of this watching spell; a new one each time, since a re-enabled one counts the pause as a delay. */
  private histogram: IntervalHistogram | undefined;
  /** The spells before it since the last reset, as weighted points. */
  private earlier: Spell[] = [];
  private since = Date.now();
  private idleChecks = 0;
  private busyChecks = 0;
  private on = false;
  private readonly check: BeatTask;

  constructor(o: LoopDelayOptions = {}) {
    const utilization = o.utilization ?? eventLoopUtilization();
    this.watch(true);
    const every = o.checkMs ?? 1_000;
    this.check = (o.beat ?? sharedBeat).every(every, () => {
      const use = utilization();
      if (this.on) {
        this.idleChecks = use < STOP_UTILIZATION ? this.idleChecks + 1 : 0;
        if (this.idleChecks >= IDLE_CHECKS) this.watch(false);
      } else {
        this.busyChecks = use >= START_UTILIZATION ? this.busyChecks + 1 : 0;
        if (this.busyChecks >= BUSY_CHECKS) this.watch(true);
      }
      return every;
    });
  }

  /** True while the histogram is taking samples. */
  get watching(): boolean {
    return this.on;
  }

  private watch(on: boolean): void {
    if (on === this.on) return;
    this.on = on;
    this.idleChecks = 0;
    this.busyChecks = 0;
    if (on) {
      this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      this.histogram.enable();
    } else if (this.histogram) {
      this.histogram.disable();
      if (this.histogram.count > 0) this.earlier.push(spellOf(this.histogram));
      this.histogram = undefined;
    }
  }

  /** The figures since the start or the last reset; `reset` starts counting afresh after reading them. */
  report(reset = false): LoopDelayReport {
    const spells = [...this.earlier, ...(this.histogram && this.histogram.count > 0 ? [spellOf(this.histogram)] : [])];
    const count = spells.reduce((n, x) => n + x.count, 0);
    const out = {
      max_ms: count === 0 ? 0 : ms(Math.max(...spells.map((x) => x.max))),
      p99_ms: count === 0 ? 0 : ms(percentileOf(spells, 99)),
      mean_ms: count === 0 ? 0 : ms(spells.reduce((n, x) => n + x.mean * x.count, 0) / count),
      samples: count,
      since: new Date(this.since).toISOString(),
    };
    if (reset) {
      this.earlier = [];
      this.histogram?.reset();
      this.since = Date.now();
    }
    return out;
  }

  stop(): void {
    this.check.dispose();
    this.watch(false);
  }
}

/** One watching spell, kept as its percentile steps: value (ns) and how many samples lie there. */
interface Spell {
  count: number;
  max: number;
  mean: number;
  points: Array<[value: number, weight: number]>;
}

function spellOf(h: IntervalHistogram): Spell {
  const points: Array<[number, number]> = [];
  let prev = 0;
  for (const [p, v] of [...h.percentiles].sort((a, b) => a[0] - b[0])) {
    points.push([v, ((p - prev) / 100) * h.count]);
    prev = p;
  }
  return { count: h.count, max: h.max, mean: h.mean, points };
}

/** The p-th percentile of all spells together: the value where their weighted points reach p % of every sample. */
function percentileOf(spells: readonly Spell[], p: number): number {
  const points = spells.flatMap((x) => x.points).sort((a, b) => a[0] - b[0]);
  const total = spells.reduce((n, x) => n + x.count, 0);
  let seen = 0;
  for (const [v, w] of points) {
    seen += w;
    if (seen >= (p / 100) * total) return v;
  }
  return points.at(-1)?.[0] ?? 0;
}

function eventLoopUtilization(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, last);
    last = now;
    return delta.utilization;
  };
}
