import { describe, expect, it } from 'vitest';
import { Blinks } from './blinks.js';

describe('blinking by observation', () => {
  it('a cell that comes back to an earlier state is a blink, whatever its glyph; the key stands since the first frame', () => {
    const b = new Blinks();
    expect(b.see('◆ waiting', 0)).toEqual({ key: '◆ waiting', since: 0 });
    expect(b.see('  waiting', 500)).toEqual({ key: '  waiting', since: 500 });
    expect(b.see('◆ waiting', 1_000)).toEqual({ key: '  waiting', since: 0 });
    expect(b.see('  waiting', 1_500)).toEqual({ key: '  waiting', since: 0 });
  });

  it('a spinner of ten frames is a blink once it comes round', () => {
    const b = new Blinks();
    const frames = [...'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'];
    let seen;
    for (let i = 0; i <= 12; i++) seen = b.see(`${frames[i % 10]} Pick one`, i * 80);
    expect(seen).toEqual({ key: '  Pick one', since: 0 });
  });

  it('a change that does not come back is a change: the selection moved', () => {
    const b = new Blinks();
    b.see('❯ staging\n  production', 0);
    expect(b.see('  staging\n❯ production', 700)).toEqual({ key: '  staging\n❯ production', since: 700 });
    expect(b.see('  staging\n❯ production', 900).since).toBe(700);
  });

  it('a counter: its last digit comes round like a spinner, but each new tens digit is a change', () => {
    const b = new Blinks();
    let seen;
    for (let i = 0; i < 20; i++) seen = b.see(`elapsed ${String(i).padStart(2, '0')}`, i * 1_000);
    expect(seen).toEqual({ key: 'elapsed 1 ', since: 10_000 });
  });

  it('a cell cycling through more than a few states is not a blink', () => {
    const b = new Blinks();
    const many = [...'abcdefghijklmn'];
    let seen;
    for (let i = 0; i <= many.length; i++) seen = b.see(`${many[i % many.length]} x`, i);
    expect(seen).toEqual({ key: 'a x', since: many.length });
  });

  it('clear forgets: the next dialog starts from nothing', () => {
    const b = new Blinks();
    b.see('● a', 0);
    b.see('○ a', 1);
    b.see('● a', 2);
    b.clear();
    expect(b.see('● a', 3)).toEqual({ key: '● a', since: 3 });
  });
});
