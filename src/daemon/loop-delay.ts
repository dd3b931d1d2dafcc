/**
 * How late the daemon's one thread gets to its timers: every job, the
 * control socket and the pager share it, so its worst delay is how long any
 * of them can be kept waiting. Reported by `status`.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelayReport {
  max_ms: number;
  p99_ms: number;
  mean_ms: number;
  /** Samples taken (one per RESOLUTION_MS the loop was free to take one). */
  samples: number;
  /** ISO time the figures are counted from: the daemon's start, or the last reset. */
  since: string;
}

/** Fine enough to see a 20 ms stall, coarse enough to cost nothing. */
const RESOLUTION_MS = 10;
const ms = (ns: number) => Math.round(ns / 1e4) / 100;

export class LoopDelay {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private since = Date.now();

  constructor() {
    this.histogram.enable();
  }

  /** The figures since the start or the last reset; `reset` starts counting afresh after reading them. */
  report(reset = false): LoopDelayReport {
    const h = this.histogram;
    const none = h.count === 0;
    const out = {
      max_ms: none ? 0 : ms(h.max),
      p99_ms: none ? 0 : ms(h.percentile(99)),
      mean_ms: none ? 0 : ms(h.mean),
      samples: h.count,
      since: new Date(this.since).toISOString(),
    };
    if (reset) {
      h.reset();
      this.since = Date.now();
    }
    return out;
  }

  stop(): void {
    this.histogram.disable();
  }
}
