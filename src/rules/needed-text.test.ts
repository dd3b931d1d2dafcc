import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../util/package.js';
import { loadRules } from './load.js';
import { NEEDED_TEXTS_TABLE, neededText, neededTextTable } from './needed-text.js';

describe('neededText', () => {
  it.each<[RegExp, readonly string[] | undefined]>([
    [/Do you want to [^\n]*\?\n\s*❯ ?1\. Yes/, ['Do you want to ']],
    [/Proceed \(Y\/n\)\?$/, ['Proceed (Y/n)?']],
    [/(?:Allow execution[^\n]*\?|Apply this change\?)/, ['Allow execution', 'Apply this change?']],
    [/\[(?:y\/n|Y\/n)\]/, ['y/n', 'Y/n']],
    [/Need to install the following packages:\n(?:x\n){1,30}?Ok/, ['Need to install the following packages:\n']],
    // A quantified text needs its one copy; an optional one, nothing.
    [/ab{2,}c/, ['a']],
    [/(?:foo)+bar/, ['foo']],
    [/x(?:foo)?/, ['x']],
    [/(?:foo)?/, undefined],
    [/(?:foo)*bar?/, ['ba']],
    // A branch with no text of its own makes the whole group say nothing.
    [/(?:foo|\d+)/, undefined],
    [/(?:foo|)bar/, ['bar']],
    [/(?:foo|)/, undefined],
    [/[abc]\s\d+/, undefined],
    [/^$/, undefined],
    // Look-arounds and back-references match no text of their own.
    [/(?=abc)\w+/, undefined],
    [/(a)\1/, ['a']],
    [/😀+/u, ['😀']],
    [/ab(?:cd|ef)gh/, ['ab']],
  ])('%s needs %j', (re, want) => {
    expect(neededText(re)?.texts).toEqual(want);
  });

  it('says how a pattern that ignores case compares its texts', () => {
    expect(neededText(/Do you/)).toEqual({ texts: ['Do you'], fold: '' });
    expect(neededText(/press (?:enter|return)/i)).toEqual({ texts: ['press '], fold: 'i' });
    expect(neededText(/press/iu)).toEqual({ texts: ['press'], fold: 'iu' });
    expect(neededText(new RegExp('press', 'iv'))).toEqual({ texts: ['press'], fold: 'iu' });
  });

  it('takes the set whose shortest text is longest', () => {
    expect(neededText(/a[xy]Do you want(?:\?|!)/)?.texts).toEqual(['Do you want']);
    expect(neededText(/(?:one|two|three)[xy]zz/)?.texts).toEqual(['one', 'two', 'three']);
  });

  // Every pattern of a small grammar over a small alphabet, against every text of a few characters:
  // a pattern that matches a text must find one of its needed texts in it.
  it('is sound: every match contains a needed text', () => {
    const random = seeded(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const atom = (depth: number): string => {
      const r = random();
      if (depth > 2 || r < 0.45) return pick(['a', 'b', 'c', 'ab', 'Ba', 'ſ', '\\n', '[ab]', '.', '\\s', 'a?', 'b*', 'c+', '(?:)']);
      if (r < 0.75) return `(?:${alternation(depth + 1)})${pick(['', '', '?', '*', '+', '{2}', '{0,2}', '{1,}'])}`;
      if (r < 0.85) return `(${alternation(depth + 1)})`;
      return pick(['(?=a)', '(?!b)', '\\b', '^', '$']);
    };
    const sequence = (depth: number) => Array.from({ length: 1 + Math.floor(random() * 4) }, () => atom(depth)).join('');
    const alternation = (depth: number) => Array.from({ length: 1 + Math.floor(random() * 3) }, () => sequence(depth)).join('|');
    const texts: string[] = [''];
    for (let len = 1; len <= 5; len++) for (let i = 0; i < 300; i++) texts.push(Array.from({ length: len }, () => pick(['a', 'b', 'c', 'A', 'B', 's', 'S', 'ſ', '\n', ' '])).join(''));
    let checked = 0;
    for (let n = 0; n < 600; n++) {
      const re = new RegExp(alternation(0), pick(['', 'm', 's', 'i', 'iu', 'is']));
      const needs = neededText(re);
      if (!needs) continue;
      const holds = (text: string, t: string) => (needs.fold === '' ? text.includes(t) : new RegExp(escape(t), needs.fold).test(text));
      for (const text of texts) {
        if (!re.test(text)) continue;
        checked++;
        expect(needs.texts.some((t) => holds(text, t)), `${re} matches ${JSON.stringify(text)} but needs ${JSON.stringify(needs)}`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });
});

const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A small deterministic generator (mulberry32): the same patterns on every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the table of the shipped patterns', () => {
  it('the build left one that holds every shipped pattern with the texts its parse gives', async () => {
    const file = packagePath(...NEEDED_TEXTS_TABLE);
    expect(existsSync(file), `${file} (npm run build writes it)`).toBe(true);
    const table = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const rules = await loadRules(packagePath('rules'));
    const patterns = [...rules.prompts, ...rules.questions, ...rules.parked].map((r) => r.match);
    expect(table).toEqual(neededTextTable(patterns));
  });
});
