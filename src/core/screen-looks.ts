/**
 * When the watchdog next looks at the screen while output is pending: one
 * rule for the live ScreenFeed and the drill's replay, so a drill sees the
 * screens a live job would have.
 *
 * Every SCREEN_SAMPLE_MS while output streams, as before; but once a whole
 * page has scrolled by since the last look, and no decision is due soon,
 * only every SCROLL_LOOK_MS, or as soon as the output pauses. Nothing on a
 * page that scrolls away within a look waits for an answer (a question
 * waits, and its program stops printing: the pause is looked at), and a
 * three-minute quiet timer does not need the screen ten times a second.
 * Reading every row of a scrolled page cost a drill of `ls -laR` twice what
 * parsing it did (0.51x a bare parse): the looks were the drill's cost.
 */
import { SCREEN_SAMPLE_MS } from './watchdog-types.js';

/**
 * A look at least this often while pages scroll by. Shorter than any
 * settle (1.5 s): a prompt or dialog seen on one look is looked at again
 * before it could block, and a look is taken before every deadline anyway.
 */
export const SCROLL_LOOK_MS = 1_000;

export interface LookState {
  /** When the watchdog last saw the screen. */
  readonly lastLook: number;
  /** When output last came. */
  readonly lastOutput: number;
  /** A whole page (the screen's height in lines) scrolled since the last look. */
  readonly scrolledPage: boolean;
  /** The watchdog's next deadline (Watchdog.nextDeadline). */
  readonly deadline: number | undefined;
}

/** When the next look at pending output is due (ms, on the job's clock). */
export function nextLook(s: LookState): number {
  const every = s.lastLook + SCREEN_SAMPLE_MS;
  // A decision close ahead (a prompt settling, a dialog) is made on a screen at most one sample old.
  const decisionNear = s.deadline !== undefined && s.deadline <= s.lastLook + SCROLL_LOOK_MS;
  if (!s.scrolledPage || decisionNear) return every;
  return Math.max(every, Math.min(s.lastLook + SCROLL_LOOK_MS, s.lastOutput + SCREEN_SAMPLE_MS));
}
