/**
 * The ceiling on waiting, live: the pure BlockedCeiling (src/core/blocked-ceiling.ts)
 * on the job's deadline timer. Its warning is a job warning (paged once, not
 * urgent enough to wake a sleeper twice); its end is a stop action (the
 * owner pages the end) and the job's stop with cause `unanswered`.
 */
import { BlockedCeiling, UNANSWERED, type CeilingStep } from '../core/blocked-ceiling.js';
import type { Clock } from '../core/clock.js';
import type { Action } from '../core/watchdog-types.js';
import { formatDuration } from '../util/duration.js';
import type { DeadlineSource } from './deadline-timer.js';
import type { JobWarning } from './tree-agent.js';

export interface CeilingHost {
  /** The job's ceiling (ms); null: none. */
  afterMs(): number | null;
  warn(w: JobWarning): void;
  action(a: Action): void;
  stop(cause: string): void;
  screen(): readonly string[];
}

export class CeilingWatch implements DeadlineSource {
  readonly ceiling: BlockedCeiling;

  constructor(
    private readonly clock: Clock,
    private readonly host: CeilingHost,
  ) {
    this.ceiling = new BlockedCeiling(clock, () => host.afterMs());
  }

  nextDeadline(): number | undefined {
    return this.ceiling.nextDeadline();
  }

  tick(): void {
    const step = this.ceiling.tick();
    if (step?.kind === 'warn') this.warn(step);
    else if (step?.kind === 'end') this.end(step);
  }

  private warn(s: CeilingStep): void {
    const now = this.clock.now();
    const left = formatDuration(s.since + s.afterMs - now);
    const message = `blocked and unanswered for ${formatDuration(now - s.since)}: it ends ${UNANSWERED} in ${left} (at ${new Date(s.since + s.afterMs).toISOString()}) and frees its slot unless a person answers or acts on it`;
    this.host.warn({ code: 'unanswered-soon', message, time: new Date(now).toISOString() });
  }

  private end(s: CeilingStep): void {
    const now = this.clock.now();
    const why = `nobody answered for ${formatDuration(now - s.since)} (the ceiling on waiting is ${formatDuration(s.afterMs)}): ended ${UNANSWERED}, its slot and --after jobs released; resume it from its card`;
    this.host.action({ t: now, kind: 'stop', rule: null, class: null, prompt: null, text: why, reason: UNANSWERED, since: s.since, screen: this.host.screen(), layer: 'ceiling', why });
    this.host.stop(UNANSWERED);
  }
}
