import { describe, expect, it } from 'vitest';
import { frames, MAX_FRAME } from './terminal.js';

describe('frames: a burst for the terminal socket', () => {
  it('splits into pieces of at most MAX_FRAME that join back to the input', () => {
    const data = 'ガ'.normalize('NFD').repeat(MAX_FRAME) + 'tail';
    const pieces = frames(data);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p.length <= MAX_FRAME && p.length > 0)).toBe(true);
    expect(pieces.join('')).toBe(data);
  });

  it('never splits a surrogate pair (an emoji across the cut stays whole)', () => {
    const data = `${'x'.repeat(MAX_FRAME - 1)}😀${'y'.repeat(10)}`;
    const pieces = frames(data);
    expect(pieces[0]!.endsWith('x')).toBe(true);
    expect(pieces[1]!.startsWith('😀')).toBe(true);
    expect(pieces.join('')).toBe(data);
  });

  it('leaves small output as one frame, and nothing as none', () => {
    expect(frames('hello')).toEqual(['hello']);
    expect(frames('')).toEqual([]);
  });
});
