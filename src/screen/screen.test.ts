import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { LIVE_PIECE, Screen } from './screen.js';
import { rng } from '../../test/helpers/rng.js';

const screens: Screen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

function screen(cols = 20, rows = 5, piece?: number): Screen {
  const s = new Screen(cols, rows, piece);
  screens.push(s);
  return s;
}

describe('Screen', () => {
  it('shows plain text with trailing spaces trimmed', async () => {
    const s = screen();
    await s.write('hello   \r\nworld');
    const snap = s.snapshot();
    expect(snap.rows).toEqual(['hello', 'world', '', '', '']);
    expect(snap.cols).toBe(20);
    expect(snap.alternate).toBe(false);
    expect(s.text()).toBe('hello\nworld');
  });

  it('strips colours and attributes', async () => {
    const s = screen();
    await s.write('\x1b[1;31mred\x1b[0m \x1b[38;5;42mgreen\x1b[m \x1b[4munder\x1b[24m');
    expect(s.snapshot().rows[0]).toBe('red green under');
  });

  it('reports the cursor in the viewport, even after scrolling', async () => {
    const s = screen();
    await s.write('ab\r\ncdef');
    expect(s.snapshot().cursor).toEqual({ x: 4, y: 1 });
    await s.write('\x1b[5;3H');
    expect(s.snapshot().cursor).toEqual({ x: 2, y: 4 });
    await s.write('\r\n1\r\n2\r\n3');
    expect(s.snapshot().cursor).toEqual({ x: 1, y: 4 });
  });

  it('keeps the cursor on screen while a wrap is pending', async () => {
    const s = screen(10, 3);
    await s.write('x'.repeat(10));
    expect(s.snapshot().cursor).toEqual({ x: 9, y: 0 });
  });

  it('shows blank rows after a clear', async () => {
    const s = screen();
    await s.write('one\r\ntwo\r\nthree');
    await s.write('\x1b[2J\x1b[H');
    expect(s.snapshot().rows).toEqual(['', '', '', '', '']);
    expect(s.text()).toBe('');
    expect(s.trailingLines(3)).toEqual([]);
    await s.write('after');
    expect(s.text()).toBe('after');
  });

  it('never shows scrollback', async () => {
    const s = screen(20, 3);
    await s.write(Array.from({ length: 50 }, (_, i) => `line${i}`).join('\r\n'));
    expect(s.snapshot().rows).toEqual(['line47', 'line48', 'line49']);
    expect(s.snapshot().cursor).toEqual({ x: 6, y: 2 });
  });

  it('shows only the alternate screen while it is active, and restores on leaving', async () => {
    const s = screen();
    await s.write('shell prompt $ ');
    await s.write('\x1b[?1049h\x1b[H\x1b[2Jfull screen app');
    let snap = s.snapshot();
    expect(snap.alternate).toBe(true);
    expect(snap.rows).toEqual(['full screen app', '', '', '', '']);
    await s.write('\x1b[?1049l');
    snap = s.snapshot();
    expect(snap.alternate).toBe(false);
    expect(snap.rows[0]).toBe('shell prompt $');
    expect(snap.cursor).toEqual({ x: 15, y: 0 });
  });

  it('follows a resize, in the alternate screen too', async () => {
    const s = screen(20, 5);
    await s.write('abc');
    s.resize(30, 8);
    let snap = s.snapshot();
    expect(snap.cols).toBe(30);
    expect(snap.rows).toHaveLength(8);
    expect(snap.rows[0]).toBe('abc');
    await s.write('\x1b[?1049h\x1b[Halt');
    s.resize(10, 2);
    snap = s.snapshot();
    expect(snap.alternate).toBe(true);
    expect(snap.rows).toEqual(['alt', '']);
    expect(() => s.resize(0, 2)).toThrow(InputError);
  });

  it('keeps the bottom rows when shrinking', async () => {
    const s = screen(20, 5);
    await s.write('a\r\nb\r\nc\r\nd\r\ne');
    s.resize(20, 2);
    expect(s.snapshot().rows).toEqual(['d', 'e']);
    expect(s.snapshot().cursor.y).toBe(1);
  });

  it('gives trailing lines ending at the last non-blank row', async () => {
    const s = screen(20, 6);
    await s.write('1\r\n2\r\n\r\n4\r\n');
    expect(s.trailingLines(2)).toEqual(['', '4']);
    expect(s.trailingLines(10)).toEqual(['1', '2', '', '4']);
    expect(s.trailingLines(0)).toEqual([]);
  });

  it('changes the fingerprint iff the rows change', async () => {
    const s = screen();
    await s.write('same');
    const a = s.snapshot();
    await s.write('\x1b[1;1H\x1b[31msame\x1b[0m');
    const b = s.snapshot();
    expect(b.rows).toEqual(a.rows);
    expect(b.fingerprint).toBe(a.fingerprint);
    await s.write('!');
    const c = s.snapshot();
    expect(c.rows).not.toEqual(a.rows);
    expect(c.fingerprint).not.toBe(a.fingerprint);
    // Moving only the cursor leaves the rows, and so the fingerprint, alone.
    await s.write('\x1b[3;3H');
    expect(s.snapshot().fingerprint).toBe(c.fingerprint);
  });

  it('survives invalid UTF-8 and random escape garbage', async () => {
    const s = screen(40, 10);
    await s.write(Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x0a, 0xf0, 0x9f]));
    await s.write('\ud800 lone surrogate \udfff');
    const rand = rng(42);
    const pieces = ['\x1b[', '\x1b]', '\x1bP', '\x07', '\x1b\\', ';', '?', '1049', '9999999999', 'h', 'l', 'm', 'J', 'K', 'H', 'r', '\r\n', 'é', '🙂'];
    for (let round = 0; round < 200; round++) {
      let chunk = '';
      for (let i = 0; i < 50; i++) {
        chunk += rand() < 0.5 ? pieces[Math.floor(rand() * pieces.length)]! : String.fromCharCode(Math.floor(rand() * 0x250));
      }
      await s.write(chunk);
    }
    await s.write('\x1b[?1049l\x1b[0m\x1bc\x1b[2J\x1b[Hstill alive');
    expect(s.snapshot().rows[0]).toBe('still alive');
    expect(s.snapshot().rows).toHaveLength(10);
  });

  it('ignores writes after dispose and keeps the last picture', async () => {
    const s = new Screen(20, 3);
    await s.write('kept');
    s.dispose();
    await s.write('ignored');
    s.resize(5, 5);
    expect(s.snapshot().rows).toEqual(['kept', '', '']);
    expect(s.text()).toBe('kept');
    s.dispose();
  });

  it('rejects a bad size', () => {
    expect(() => new Screen(0, 24)).toThrow(/invalid screen size 0x24/);
  });
});

describe('Screen replies and speed', () => {
  it('answers a cursor position request through onReply', async () => {
    const s = screen(20, 5);
    const replies: string[] = [];
    s.onReply((d) => replies.push(d));
    await s.write('ab\r\nc\x1b[6n');
    expect(replies).toEqual(['\x1b[2;2R']);
  });

  it('parses each small write in the caller\'s task, never on xterm\'s 1 ms timer', async () => {
    const s = screen(80, 24);
    // On the timer, 3000 awaited writes would take 3 s; here each is on the screen before write() returns.
    for (let i = 0; i < 3000; i++) {
      const parsed = s.write(`line ${i}\r\n`);
      expect(s.trailingLines(1)).toEqual([`line ${i}`]);
      await parsed;
    }
  });

  it('parses a live job\'s write at most LIVE_PIECE at a time in the caller\'s task, a drill\'s whole write at once', async () => {
    // 1500 lines of 65 bytes: 97.5 KB, under the size a write is collapsed at, so every byte is parsed.
    const data = Array.from({ length: 1500 }, (_, i) => `line ${String(i).padStart(4, '0')} `.padEnd(63, '.') + '\r\n').join('');
    // The last whole line on the screen (a piece can end inside a line).
    const lineOf = (s: Screen) => Math.max(-1, ...[...s.trailingLines(2).join('\n').matchAll(/line (\d+)/g)].map((m) => Number(m[1])));
    const live = screen(80, 24, LIVE_PIECE);
    const parsed = live.write(data);
    // What the caller's task parsed: the lines the first piece holds whole, no more.
    expect(lineOf(live)).toBe(Math.floor(LIVE_PIECE / 65) - 1);
    await parsed;
    expect(lineOf(live)).toBe(1499);
    const drill = screen(80, 24);
    void drill.write(data);
    expect(lineOf(drill)).toBe(1499);
  });
});
