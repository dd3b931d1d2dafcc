import { describe, expect, it } from 'vitest';
import { formatSize, isNoSpace, parseSize } from './size.js';

describe('sizes', () => {
  it.each([
    ['4096', 4096],
    ['500k', 512_000],
    ['256m', 256 * 1024 ** 2],
    ['1g', 1024 ** 3],
    ['1.5MB', 1.5 * 1024 ** 2],
    ['2MiB', 2 * 1024 ** 2],
  ])('%s is %d bytes', (text, bytes) => expect(parseSize(text)).toBe(bytes));

  it('refuses what is not a size, naming it', () => {
    expect(() => parseSize('lots', '--recording-cap')).toThrow('--recording-cap "lots" is not a size');
  });

  it('formats and knows a full disk', () => {
    expect(formatSize(256 * 1024 ** 2)).toBe('256MB');
    expect(isNoSpace(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe(true);
    expect(isNoSpace(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe(false);
  });
});
