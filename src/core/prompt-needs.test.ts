import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { matchPrompts, type PromptRule } from './prompt-match.js';
import { NeedsScan, RowNeeds, type NeededText } from './prompt-needs.js';

const exact = (...texts: string[]): NeededText => ({ texts, fold: '' });
const rows = (text: string) => text.split('\n');
/** A first look at a screen of at most four rows: every row is read at once. */
const possible = (scan: NeedsScan, text: string) => new RowNeeds(scan).possible(rows(text), rows(text).length - 1);

describe('NeedsScan', () => {
  it('says which rules could match: one of its texts is there, or it needs none', () => {
    const scan = new NeedsScan([{ needs: exact('Do you want to ') }, { needs: exact('y/n', 'Y/n') }, {}, { needs: exact('(END)') }]);
    expect(possible(scan, 'Do you want to proceed?\n❯ 1. Yes')).toEqual([true, false, true, false]);
    expect(possible(scan, 'Continue? [Y/n] ')).toEqual([false, true, true, false]);
    expect(possible(scan, 'notes.md (END)')).toEqual([false, false, true, true]);
  });

  it('looks only at the rows up to the last one it is given', () => {
    const scan = new NeedsScan([{ needs: exact('y/n') }]);
    expect(new RowNeeds(scan).possible(['building', 'ok? [y/n]'], 0)).toEqual([false]);
    expect(new RowNeeds(scan).possible(['building', 'ok? [y/n]'], 1)).toEqual([true]);
  });

  it('finds a text across rows piece by piece', () => {
    const scan = new NeedsScan([{ needs: exact('Need to install the following packages:\nlodash') }, { needs: exact('\n') }]);
    expect(possible(scan, 'Need to install the following packages:\nlodash@4\nOk to proceed? (y)')).toEqual([true, true]);
    expect(possible(scan, 'Need to install the following packages:\nleft-pad')).toEqual([false, true]);
  });

  it('takes regex characters in a text literally', () => {
    const scan = new NeedsScan([{ needs: exact('Proceed (Y/n)?') }, { needs: exact('a.b') }, { needs: exact('[y/N]') }]);
    expect(possible(scan, 'Proceed (Y/n)?')).toEqual([true, false, false]);
    expect(possible(scan, 'Proceed Y/n axb')).toEqual([false, false, false]);
    expect(possible(scan, 'a.b [y/N]')).toEqual([false, true, true]);
  });

  it('compares a case-folded text as its rule does', () => {
    const scan = new NeedsScan([{ needs: { texts: ['press enter'], fold: 'i' } }, { needs: { texts: ['sk'], fold: 'iu' } }, { needs: exact('Press') }]);
    expect(possible(scan, 'PRESS ENTER to go on')).toEqual([true, false, false]);
    // U+017F folds to s only under Unicode folding, as in the rule's own regex.
    expect(possible(scan, 'taſk')).toEqual([false, true, false]);
    expect(possible(scan, 'Press Enter')).toEqual([true, false, true]);
  });

  it('runs a rule with no texts, or texts of line ends only, at every look', () => {
    const scan = new NeedsScan([{ needs: exact() }, { needs: exact('\n\n') }, { needs: exact('x') }]);
    expect(possible(scan, 'nothing here')).toEqual([true, true, false]);
  });

  it('reads one new row each look on a screen that otherwise stays', () => {
    const scan = new NeedsScan([{ needs: exact('hit') }, { needs: exact('Proceed?') }]);
    const looks = new RowNeeds(scan);
    expect(looks.possible(['building', 'step 1'], 1)).toEqual([false, false]);
    expect(looks.possible(['building', 'step 2, a hit'], 1)).toEqual([true, false]);
    // Equal rows are the same rows, whichever string holds them.
    expect(looks.possible([['build', 'ing'].join(''), 'Proceed?'], 1)).toEqual([false, true]);
    expect(looks.possible(['building'], 0)).toEqual([false, false]);
  });

  it('leaves a screen with many changed rows to the rules, and knows it a few looks on', () => {
    const scan = new NeedsScan([{ needs: exact('hit') }, { needs: { texts: ['PRESS'], fold: 'i' } }]);
    const looks = new RowNeeds(scan);
    const screen = Array.from({ length: 30 }, (_, i) => (i === 17 ? 'a hit, press on' : `line ${i}`));
    const seen: Array<boolean[] | undefined> = [];
    for (let i = 0; i < 8; i++) seen.push(looks.possible(screen, 29));
    expect(seen.slice(0, 7)).toEqual(Array(7).fill(undefined));
    expect(seen[7]).toEqual([true, true]);
    const next = [...screen];
    next[17] = 'line 17';
    expect(looks.possible(next, 29)).toEqual([false, false]);
    // Scrolled by a line: every row changed.
    expect(looks.possible([...next.slice(1), 'line 30'], 29)).toBeUndefined();
  });

  it('gives the same answers for screens it has read before', () => {
    const scan = new NeedsScan([{ needs: exact('one') }, { needs: exact('two') }]);
    const looks = new RowNeeds(scan);
    for (let i = 0; i < 3; i++) {
      expect(looks.possible(['one'], 0)).toEqual([true, false]);
      expect(looks.possible(['two two', 'three'], 1)).toEqual([false, true]);
    }
  });
});

describe('matchPrompts with needed texts', () => {
  const rule = (id: string, match: RegExp, needs?: NeededText): PromptRule => ({
    id,
    class: 'confirm',
    match,
    cursor: 'any',
    lines: 5,
    answer: [],
    decline: [],
    programs: [],
    generic: false,
    ...(needs ? { needs } : {}),
    source: { file: 'test.yaml', line: 1 },
  });
  const screen = snapshotOf('building...\nContinue? [y/N] ');

  it('does not run a rule whose texts are not on the screen', () => {
    const rules = [rule('a', /\[y\/N\]\s*$/, exact('Proceed'))];
    expect(matchPrompts(screen, rules, new RowNeeds(new NeedsScan(rules)))).toEqual([]);
    // Without the rows' texts, every rule is run.
    expect(matchPrompts(screen, rules).map((m) => m.rule.id)).toEqual(['a']);
  });

  it('runs a rule with one of its texts on the screen, or with none known', () => {
    const rules = [rule('a', /\[y\/N\]\s*$/, exact('y/N')), rule('b', /\[y\/N\]\s*$/)];
    expect(matchPrompts(screen, rules, new RowNeeds(new NeedsScan(rules))).map((m) => m.rule.id)).toEqual(['a', 'b']);
  });
});
