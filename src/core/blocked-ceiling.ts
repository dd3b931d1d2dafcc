/**
 * The ceiling on waiting: a job blocked on something a person was paged for
 * ends `done/unanswered` once nobody acted for `afterMs`, so it releases its
 * run slot and its dependents instead of holding them all night; the person
 * is paged once before (`warnBeforeMs`), and resumes it from its card in the
 * morning. Pure and clock-injected like the watchdog: the host asks
 * nextDeadline() and calls tick() then.
 */
import type { Clock } from './clock.js';
import type { Transition } from './task-state.js';
import type { Action } from './watchdog-types.js';

/**
 * Two hours: a person who sleeps through a 23:00 page loses nothing (the job
 * is resumed from its card at 07:00), while the slot and the `--after` jobs
 * behind it get six of the eight hours back; one who wakes at night still
 * has a while to answer.
 */
export const DEFAULT_MAX_BLOCKED_MS = 2 * 60 * 60_000;
/** The warning comes this long before the end, or at three quarters of a short ceiling. */
export const CEILING_WARNING_MS = 15 * 60_000;

export const UNANSWERED = 'unanswered';

export function warnBefore(afterMs: number): number {
  return Math.min(CEILING_WARNING_MS, Math.floor(afterMs / 4));
}

/** When the wait that started at `since` (the first page, or a person's last act) is warned of and ended. */
export function ceilingDeadlines(afterMs: number, since: number): { readonly warnAt: number; readonly endAt: number } {
  return { warnAt: since + afterMs - warnBefore(afterMs), endAt: since + afterMs };
}

export type CeilingStep = { readonly kind: 'warn' | 'end'; readonly since: number; readonly afterMs: number };

export class BlockedCeiling {
  /** When the wait started; null while the job is not blocked on a page. */
  private since: number | null = null;
  private warned = false;

  constructor(
    private readonly clock: Clock,
    /** The job's ceiling now; null: no ceiling. */
    private readonly afterMs: () => number | null,
  ) {}

  /** Leaving a block ends its wait, whatever ended it. */
  transition(t: Transition): void {
    if (t.from === 'blocked' && t.to !== 'blocked') this.since = null;
  }

  /**
   * The first page of a block starts the wait; later pages of the same block do not move it.
   * A parked job waits for no answer: it is done with its work and left as it is unless a person ends it.
   */
  action(a: Action): void {
    if (a.kind === 'escalate' && a.reason !== 'parked' && this.since === null) [this.since, this.warned] = [a.t, false];
  }

  /** A person acted on the job (typed, sent): they are there, so the wait starts again. */
  person(): void {
    if (this.since !== null) [this.since, this.warned] = [this.clock.now(), false];
  }

  nextDeadline(): number | undefined {
    const after = this.afterMs();
    if (after === null || this.since === null) return undefined;
    const d = ceilingDeadlines(after, this.since);
    return this.warned ? d.endAt : d.warnAt;
  }

  /** What is due now: the warning (once per wait), then the end; null when nothing is. */
  tick(): CeilingStep | null {
    const due = this.nextDeadline();
    if (due === undefined || this.clock.now() < due) return null;
    const step: CeilingStep = { kind: this.warned ? 'end' : 'warn', since: this.since!, afterMs: this.afterMs()! };
    if (step.kind === 'warn') this.warned = true;
    else this.since = null;
    return step;
  }
}
