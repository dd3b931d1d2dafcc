import { describe, expect, it } from 'vitest';
import { parseDuration, parseDurationFlag } from './duration.js';

describe('parseDurationFlag: a duration typed after a flag', () => {
  it('takes a number with its unit, and zero alone', () => {
    expect(parseDurationFlag('6h', '--max-wall')).toBe(6 * 3_600_000);
    expect(parseDurationFlag('1.5s', '--settle')).toBe(1_500);
    expect(parseDurationFlag('250ms', '--tick')).toBe(250);
    expect(parseDurationFlag('0', '--settle')).toBe(0);
  });

  it('refuses a bare number, naming the flag and the value', () => {
    expect(() => parseDurationFlag('6', '--max-wall')).toThrow('--max-wall "6": give a unit, e.g. 6h, 90m, 30s');
    expect(() => parseDurationFlag('1.5', '--settle')).toThrow('--settle "1.5": give a unit, e.g. 6h, 90m, 30s');
  });

  it('refuses what is no duration as parseDuration does', () => {
    expect(() => parseDurationFlag('6 hours', '--max-wall')).toThrow('--max-wall "6 hours" is not a duration; expected e.g. 90s, 3m, 1.5s, 6h, 250ms');
  });
});

describe('parseDuration: files keep a bare number as seconds', () => {
  it('reads a YAML number or a bare string as seconds', () => {
    expect(parseDuration(30)).toBe(30_000);
    expect(parseDuration('30')).toBe(30_000);
  });
});
