/**
 * When the watchdog's timed verdicts fall due. tick() decides with these
 * times and nextDeadline() reports the earliest, so the host wakes exactly
 * when a verdict could change; both read them from one place.
 */
import type { Clock } from './clock.js';
import type { ScreenSnapshot } from './screen-snapshot.js';
import type { Progress } from './progress.js';
import type { AgentWait } from './agent-wait.js';
import type { AnswerCheck } from './answer-check.js';
import type { Candidate, ScreenAsks } from './screen-asks.js';
import type { Verdicts } from './verdicts.js';
import { waitKind, waitMs, type TtyMode } from './input-wait.js';
import { PARKED_MS, type WatchdogConfig } from './watchdog-types.js';

/** The watchdog's latest readings of its terminal, shared by reference with the parts that decide from them. */
export interface Seen {
  screen: ScreenSnapshot | undefined;
  foreground: string | null;
  /** The file an editor or pager in the foreground has open. */
  foregroundFile: string | undefined;
  ttyMode: TtyMode | undefined;
}

/** The watchdog's parts its deadlines and blocks read. */
export interface WatchdogParts {
  readonly v: Verdicts;
  readonly progress: Progress;
  readonly asks: ScreenAsks;
  readonly answers: AnswerCheck;
  readonly agent: AgentWait;
  readonly config: WatchdogConfig;
  readonly seen: Seen;
}

export class Deadlines {
  constructor(
    private readonly w: WatchdogParts,
    private readonly clock: Clock,
  ) {}

  /** The next time (ms) at which tick() could change something; undefined if none. */
  next(): number | undefined {
    const { v, asks, config, progress } = this.w;
    if (v.state === 'done' || v.state === 'queued') return undefined;
    // Asked several times for every event a drill replays: no list is built.
    const soonest = new Soonest(this.clock.now());
    const { candidate, dialog } = asks;
    if (candidate && !v.blockedOn(candidate.key)) soonest.add(candidate.since + this.settleFor(candidate));
    if (dialog && !v.blockedOn(dialog.key)) soonest.add(dialog.since + config.settleMs);
    if (asks.parked && v.state === 'running') soonest.add(this.parkedDue(asks.parked));
    soonest.add(this.w.answers.due);
    soonest.add(this.waitDue());
    if (v.state === 'running' && !candidate) soonest.add(this.w.agent.deadline(progress.stillness(config.settleMs)));
    if (v.state === 'running') {
      const quietDue = progress.lastNewScreen + config.screenQuietMs;
      soonest.add(quietDue);
      if (!progress.somethingMoves()) soonest.add(Math.max(quietDue, this.hangDeadline()));
    }
    return soonest.at;
  }

  /**
   * When the foreground program's wait for a person is sure: it reads the
   * terminal (or is an editor or pager), nothing in the tree works, and
   * the screen showed nothing new for the wait's time. A rule's prompt or a
   * dialog's structure, when there is one, decides instead.
   */
  waitDue(): number | undefined {
    const { v, asks, progress, seen } = this.w;
    if (v.state !== 'running' || asks.candidate || asks.dialog) return undefined;
    const kind = waitKind(seen.foreground, asks.readingTty, seen.ttyMode);
    // An editor's own writes (vim's swap file, 4 s after the last key) are not work someone waits for.
    if (!kind || (progress.procBusy && kind !== 'editor' && kind !== 'pager')) return undefined;
    return progress.lastNewScreen + waitMs(kind);
  }

  /** When a watch mode counts as parked: its footer and the whole screen still for PARKED_MS. */
  parkedDue(p: Candidate): number {
    return Math.max(p.since, this.w.progress.lastNewScreen) + PARKED_MS;
  }

  settleFor(c: Candidate): number {
    return this.w.asks.settleFor(c, this.w.config.settleMs);
  }

  hangDeadline(): number {
    return this.w.progress.lastProgress() + this.w.config.toolGapMs;
  }
}

/** The earliest of the times added that is still to come (after `now`). */
class Soonest {
  at: number | undefined;
  constructor(private readonly now: number) {}
  add(t: number | undefined): void {
    if (t !== undefined && t > this.now && (this.at === undefined || t < this.at)) this.at = t;
  }
}
