/**
 * Command lines that parse but do not do what the person meant: a word
 * before `--` that commander took as the command, and watchdog times whose
 * order makes one of them moot.
 */
import type { WatchdogConfig } from '../core/watchdog-types.js';
import { formatDuration } from '../util/duration.js';
import { InputError } from '../util/errors.js';

/**
 * Refuses a command that began before a `--` (`submit --max-wall 6h hours
 * -- true` would run `hours -- true`). `raw` is what followed the program
 * name; `command` what commander took as the command. Without any `--` the
 * command may still lead, as in `nightshift run true`.
 */
export function refuseStrayWords(raw: readonly string[], command: readonly string[]): void {
  const dashes = raw.indexOf('--');
  if (dashes < 0) return;
  // commander keeps the `--` inside a command that began before it.
  const strays = command.length - (raw.length - dashes);
  if (strays <= 0) return;
  const first = dashes - strays;
  const words = raw.slice(first, dashes).join(' ');
  throw new InputError(`unexpected "${words}" after ${leadOf(raw, first)}; the command goes after --`);
}

/** What came just before the stray word: a flag and its value, a flag alone, or the verb. */
function leadOf(raw: readonly string[], at: number): string {
  const prev = raw[at - 1]!;
  const before = raw[at - 2];
  if (!prev.startsWith('-') && before?.startsWith('-') && !before.includes('=')) return `${before} ${prev}`;
  return prev;
}

/**
 * The watchdog calls a job hung only when it inspects a quiet screen
 * (src/core/watchdog.ts inspectQuiet): a tool gap at or below the quiet time
 * has run out by then, so the quiet time alone decides.
 */
export function toolGapWarning(c: WatchdogConfig): string | undefined {
  if (c.toolGapMs > c.screenQuietMs) return undefined;
  const gap = formatDuration(c.toolGapMs);
  const quiet = formatDuration(c.screenQuietMs);
  return (
    `--tool-gap ${gap} is not longer than --screen-quiet ${quiet}: a job with nothing moving is called hung at the first quiet inspection, ` +
    `${quiet} after its screen last changed, so --tool-gap does not make it sooner; give --tool-gap more than --screen-quiet (lower --screen-quiet to catch hangs sooner)`
  );
}
