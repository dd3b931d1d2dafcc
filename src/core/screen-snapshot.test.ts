import { describe, expect, it } from 'vitest';
import { highlightOf, styleKey } from './screen-snapshot.js';

describe('highlightOf', () => {
  it('keeps reverse video and background, drops the text colour, of every kind of key', () => {
    expect(highlightOf(styleKey(true, 1, 4, 2, 0xff0000))).toBe('inv/1:4');
    expect(highlightOf(styleKey(false, 0, 0, 1, 3))).toBe('/0:0');
    expect(highlightOf(null)).toBe('');
    expect(highlightOf('')).toBe('');
    // Not a key rowStyle writes, but as the split-and-join it stands for reads them.
    for (const odd of ['plain', 'a/b', 'a/b/', '/', '//', 'a//b/c']) expect(highlightOf(odd), odd).toBe(odd.split('/').slice(0, 2).join('/'));
  });
});
