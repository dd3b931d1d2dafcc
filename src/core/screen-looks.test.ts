import { describe, expect, it } from 'vitest';
import { nextLook, SCROLL_LOOK_MS } from './screen-looks.js';
import { SCREEN_SAMPLE_MS } from './watchdog-types.js';

describe('nextLook', () => {
  const base = { lastLook: 10_000, lastOutput: 10_050, deadline: undefined };

  it('looks every SCREEN_SAMPLE_MS while output streams in place', () => {
    expect(nextLook({ ...base, scrolled: false })).toBe(10_000 + SCREEN_SAMPLE_MS);
  });

  it('puts the look off to SCROLL_LOOK_MS while output scrolls by and goes on', () => {
    expect(nextLook({ ...base, lastOutput: 10_950, scrolled: true })).toBe(10_000 + SCROLL_LOOK_MS);
  });

  it('looks at a pause in scrolling output a sample after the last output', () => {
    expect(nextLook({ ...base, lastOutput: 10_300, scrolled: true })).toBe(10_400);
    // Never sooner than the sampling rate itself.
    expect(nextLook({ ...base, lastOutput: 9_990, scrolled: true })).toBe(10_000 + SCREEN_SAMPLE_MS);
  });

  it('does not put a look off past a decision due within SCROLL_LOOK_MS', () => {
    expect(nextLook({ ...base, lastOutput: 10_950, scrolled: true, deadline: 10_900 })).toBe(10_000 + SCREEN_SAMPLE_MS);
    expect(nextLook({ ...base, lastOutput: 10_950, scrolled: true, deadline: 10_000 + SCROLL_LOOK_MS + 1 })).toBe(10_000 + SCROLL_LOOK_MS);
  });
});
