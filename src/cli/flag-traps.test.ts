import { describe, expect, it } from 'vitest';
import { DEFAULT_WATCHDOG } from '../core/watchdog-types.js';
import { refuseStrayWords, toolGapWarning } from './flag-traps.js';

/** What commander hands the action as the command, for argv after the program name. */
const stray = (raw: string[], command: string[]) => () => refuseStrayWords(raw, command);

describe('refuseStrayWords', () => {
  it('refuses words commander took as the command before a --, naming what came before them', () => {
    expect(stray(['submit', '--max-wall', '6h', 'hours', '--', 'true'], ['hours', '--', 'true'])).toThrow(
      'unexpected "hours" after --max-wall 6h; the command goes after --',
    );
    expect(stray(['run', '--quiet', 'a', 'b', '--', 'x'], ['a', 'b', '--', 'x'])).toThrow('unexpected "a b" after --quiet;');
    expect(stray(['run', '--timeout=5s', 'a', '--', 'x'], ['a', '--', 'x'])).toThrow('unexpected "a" after --timeout=5s;');
    expect(stray(['run', 'a', '--', 'x'], ['a', '--', 'x'])).toThrow('unexpected "a" after run;');
  });

  it('takes a command after --, even one holding -- itself, and a command given without any --', () => {
    expect(stray(['run', '--quiet', '--', 'bash', '-c', 'x', '--', 'y'], ['bash', '-c', 'x', '--', 'y'])).not.toThrow();
    expect(stray(['run', '--quiet', 'sleep', '5'], ['sleep', '5'])).not.toThrow();
    expect(stray(['submit', '--', 'true'], ['true'])).not.toThrow();
  });
});

describe('toolGapWarning', () => {
  const config = (toolGapMs: number, screenQuietMs: number) => ({ ...DEFAULT_WATCHDOG, toolGapMs, screenQuietMs });

  it('says nothing of a gap longer than the quiet time (the defaults)', () => {
    expect(toolGapWarning(DEFAULT_WATCHDOG)).toBeUndefined();
    expect(toolGapWarning(config(180_001, 180_000))).toBeUndefined();
  });

  it('at or below the quiet time, says the quiet time decides', () => {
    expect(toolGapWarning(config(60_000, 180_000))).toBe(
      '--tool-gap 1m is not longer than --screen-quiet 3m: a job with nothing moving is called hung at the first quiet inspection, ' +
        '3m after its screen last changed, so --tool-gap does not make it sooner; give --tool-gap more than --screen-quiet (lower --screen-quiet to catch hangs sooner)',
    );
    expect(toolGapWarning(config(180_000, 180_000))).toMatch(/^--tool-gap 3m is not longer than --screen-quiet 3m: /);
  });
});
