import { describe, expect, it } from 'vitest';
import { BearerLimit } from './bearer-limit.js';

describe('BearerLimit', () => {
  it('limits an address after max failures in its window, tells how long to wait, and forgets it when the window ends', () => {
    const l = new BearerLimit({ max: 3, windowMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfter('10.0.0.1', 1_000)).toBe(0);
      l.failed('10.0.0.1', 1_000);
    }
    expect(l.retryAfter('10.0.0.1', 1_000)).toBe(60);
    expect(l.retryAfter('10.0.0.1', 59_500)).toBe(2);
    // Another address is not touched by the first one's failures.
    expect(l.retryAfter('10.0.0.2', 1_000)).toBe(0);
    expect(l.retryAfter('10.0.0.1', 61_000)).toBe(0);
    l.failed('10.0.0.1', 61_000);
    expect(l.retryAfter('10.0.0.1', 61_000)).toBe(0);
  });
});
