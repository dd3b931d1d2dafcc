/**
 * When the watchdog next looks at the screen while output is pending: one
 * rule for the live ScreenFeed and the drill's replay, so a drill sees the
 * screens a live job would have.
 *
 * Every SCREEN_SAMPLE_MS while output streams in place (a spinner, a
 * progress bar); but once output has scrolled the screen since the last
 * look, and no decision is due soon, only every SCROLL_LOOK_MS, or as soon
 * as the output pauses. A question sits at the bottom with the cursor on it
 * and its program stops printing: the pause is looked at. A line that more
 * output pushed up is no question anyone waits on, and a three-minute quiet
 * timer does not need the screen ten times a second. A scrolled screen is
 * read whole (every row moved): reading it ten times a second cost a drill
 * of `ls -laR` more than parsing it did. A whole page, as this rule once
 * asked, depended on how the reader cut the output: 200-byte reads, 10 ms
 * apart, scroll 30 lines a sample and were looked at ten times a second.
 */
import { SCREEN_SAMPLE_MS } from './watchdog-types.js';

/**
 * A look at least this often while output scrolls by. Shorter than any
 * settle (1.5 s): a prompt or dialog seen on one look is looked at again
 * before it could block, and a look is taken before every deadline anyway.
 */
export const SCROLL_LOOK_MS = 1_000;

export interface LookState {
  /** When the watchdog last saw the screen. */
  readonly lastLook: number;
  /** When output last came. */
  readonly lastOutput: number;
  /** Output scrolled the screen (a line or more) since the last look. */
  readonly scrolled: boolean;
  /** The watchdog's next deadline (Watchdog.nextDeadline). */
  readonly deadline: number | undefined;
}

/** When the next look at pending output is due (ms, on the job's clock). */
export function nextLook(s: LookState): number {
  const every = s.lastLook + SCREEN_SAMPLE_MS;
  // A decision close ahead (a prompt settling, a dialog) is made on a screen at most one sample old.
  const decisionNear = s.deadline !== undefined && s.deadline <= s.lastLook + SCROLL_LOOK_MS;
  if (!s.scrolled || decisionNear) return every;
  return Math.max(every, Math.min(s.lastLook + SCROLL_LOOK_MS, s.lastOutput + SCREEN_SAMPLE_MS));
}
