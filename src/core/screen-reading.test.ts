import { describe, expect, it, vi } from 'vitest';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import type { PromptRule } from './prompt-match.js';
import { fingerprintRows, rowHash, type ScreenSnapshot } from './screen-snapshot.js';
import { ScreenReadings } from './screen-reading.js';

const yn = (): PromptRule =>
  ({ id: 'yn', class: 'confirm', match: /\[y\/N\]\s*$/, cursor: 'same-line', lines: 1, answer: ['y'], decline: ['n'], programs: [], generic: true, source: { file: 'test', line: 1 } }) as PromptRule;

/** A menu marked only by reverse video (dialog --menu without buttons): read with the rows' styles. */
const MENU = 'Pick a target\n  staging\n  production\n  local';
const styled = (selected: number | null): ScreenSnapshot => ({
  ...snapshotOf(MENU, { cursor: { x: 0, y: 0 } }),
  styleOf: (row) => (row === 0 || row > 3 ? null : row === selected ? 'inv/0:0/0:0' : '/0:0/0:0'),
});

describe('ScreenReadings: prompts and dialogs of screens seen before', () => {
  it('reads a screen that comes round again once, and gives the same answer', () => {
    const rules = [yn()];
    const exec = vi.spyOn(rules[0]!.match, 'exec');
    const r = new ScreenReadings();
    const spinner = ['⠋', '⠙', '⠹'].map((f) => `${f} working\nContinue? [y/N] `);
    for (let round = 0; round < 3; round++) for (const s of spinner) expect(r.prompt(snapshotOf(s), rules)?.rule.id).toBe('yn');
    expect(exec).toHaveBeenCalledTimes(3);
  });

  it('reads again when the cursor moved: a prompt counts only with the cursor at it', () => {
    const rules = [yn()];
    const r = new ScreenReadings();
    expect(r.prompt(snapshotOf('Continue? [y/N] '), rules)).toBeDefined();
    expect(r.prompt(snapshotOf('Continue? [y/N] ', { cursor: 'below' }), rules)).toBeUndefined();
  });

  it('compares the rows whole: two screens with one fingerprint are read each on its own', () => {
    const r = new ScreenReadings();
    const a = { ...snapshotOf('Continue? [y/N] ', { cursor: { x: 0, y: 0 } }), fingerprint: 'same' };
    const b = { ...snapshotOf('all done', { cursor: { x: 0, y: 0 } }), fingerprint: 'same' };
    const cursorAny = [{ ...yn(), cursor: 'any' } as PromptRule];
    expect(r.prompt(a, cursorAny)).toBeDefined();
    expect(r.prompt(b, cursorAny)).toBeUndefined();
    expect(r.prompt(a, cursorAny)).toBeDefined();
  });

  it('keeps screens that share a fingerprint side by side: each is read once however they alternate', () => {
    const rules = [{ ...yn(), cursor: 'any' } as PromptRule];
    const exec = vi.spyOn(rules[0]!.match, 'exec');
    const r = new ScreenReadings();
    const a = { ...snapshotOf('Continue? [y/N] ', { cursor: { x: 0, y: 0 } }), fingerprint: 'same' };
    const b = { ...snapshotOf('all done', { cursor: { x: 0, y: 0 } }), fingerprint: 'same' };
    const c = { ...a, cursor: { x: 3, y: 0 } };
    const round = () => {
      expect(r.prompt({ ...a }, rules)).toBeDefined();
      expect(r.prompt({ ...b }, rules)).toBeUndefined();
      expect(r.prompt({ ...c }, rules)).toBeDefined();
      return exec.mock.calls.length;
    };
    const first = round();
    expect(first).toBeGreaterThanOrEqual(3);
    expect([round(), round()]).toEqual([first, first]);
  });

  it('reads again under new rules (a reload), and keeps prompts and questions apart', () => {
    const r = new ScreenReadings();
    const snap = snapshotOf('Continue? [y/N] ');
    expect(r.prompt(snap, [yn()])).toBeDefined();
    expect(r.prompt(snap, [])).toBeUndefined();
    const prompts = [yn()];
    const questions: PromptRule[] = [];
    expect(r.prompt(snap, prompts)).toBeDefined();
    expect(r.prompt(snap, questions)).toBeUndefined();
    expect(r.prompt(snap, prompts)).toBeDefined();
  });

  it('reads a highlight-only menu again every time: its styles are not in the rows', () => {
    const r = new ScreenReadings();
    expect(r.dialog(styled(2))?.kind).toBe('menu');
    expect(r.dialog(styled(null))).toBeUndefined();
    expect(r.dialog(styled(3))?.kind).toBe('menu');
  });

  it('keeps a dialog read from the rows alone', () => {
    const r = new ScreenReadings();
    const buttons = snapshotOf('Deploy?\n\n   <Yes>     <No>', { cursor: { x: 0, y: 0 } });
    expect(r.dialog(buttons)?.kind).toBe('buttons');
    expect(r.dialog({ ...buttons })?.kind).toBe('buttons');
  });

  it('forgets the least recently read screen past 512 that differ in a row (a spinner)', () => {
    const read = counted((i) => snapshotOf(`step ${i}\nContinue? [y/N] `));
    expect(read(...upTo(513))).toBe(513);
    expect(read(512, 1)).toBe(513);
    expect(read(0)).toBe(514);
  });

  it('keeps far fewer screens that share nothing (output scrolling on): its memory stays bounded', () => {
    // 24 rows of 100 characters, all new each time: about 2,500 characters a screen.
    const read = counted((i) => snapshotOf(Array.from({ length: 24 }, (_, y) => `${i}:${y}:`.padEnd(100, 'x')).join('\n')));
    expect(read(...upTo(60))).toBe(60);
    expect(read(59, 30)).toBe(60);
    expect(read(0)).toBe(61);
  });
});

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Reads numbered screens through one ScreenReadings; answers how many times the prompt regex has run in all. */
function counted(screen: (i: number) => ScreenSnapshot): (...screens: number[]) => number {
  const rules = [yn()];
  const exec = vi.spyOn(rules[0]!.match, 'exec');
  const r = new ScreenReadings();
  return (...screens) => {
    for (const i of screens) r.prompt(screen(i), rules);
    return exec.mock.calls.length;
  };
}

describe('fingerprintRows', () => {
  it('is the same from the rows or from their kept hashes, and changes with any row', () => {
    const rows = ['a', 'spinner ⠋', '', 'end'];
    expect(fingerprintRows(rows, rows.map(rowHash))).toBe(fingerprintRows(rows));
    expect(fingerprintRows(['a', 'spinner ⠙', '', 'end'])).not.toBe(fingerprintRows(rows));
    expect(fingerprintRows(['a', '', 'spinner ⠋', 'end'])).not.toBe(fingerprintRows(rows));
  });
});
