import { describe, expect, it } from 'vitest';
import { CastText } from './cast-text.js';

/** The lines `pieces` make on a page `height` rows tall, written piece by piece. */
function render(pieces: string[], height = 24): string[] {
  const out: string[] = [];
  const t = new CastText(height, (l) => out.push(l));
  for (const p of pieces) t.write(p);
  t.end();
  return out;
}

describe('CastText: a recording\'s output as plain lines', () => {
  it('keeps plain lines as they are, without the blank line after the last newline', () => {
    expect(render(['one\r\ntwo\r\n', 'three\r\n'])).toEqual(['one', 'two', 'three']);
    expect(render(['a\r\n\r\nb\r\n\r\n\r\n'])).toEqual(['a', '', 'b']);
  });

  it('drops colours, titles and mode changes, even split between pieces', () => {
    expect(render(['\x1b[1;3', '1mred\x1b[0m plain\r\n', '\x1b]0;a ti', 'tle\x07\x1b[?25lok\x1b[?25h\r\n', '\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\n'])).toEqual([
      'red plain',
      'ok',
      'link',
    ]);
  });

  it('collapses a progress line rewritten with CR to its last state', () => {
    expect(render(['get  10%', '\rget  50%', '\rget 100%\r\n', 'done\r\n'])).toEqual(['get 100%', 'done']);
    // Overwritten in place, shorter text leaves the old tail, as on a terminal...
    expect(render(['progress 100%\rdone\r\n'])).toEqual(['doneress 100%']);
    // ...unless the line is erased first.
    expect(render(['progress 100%\r\x1b[Kdone\r\n', 'x\x1b[2K\ry\r\n'])).toEqual(['done', 'y']);
  });

  it('keeps the last frame of a block redrawn from above (a spinner, a TUI), not every frame', () => {
    const frame = (n: number) => `status ${n}\r\nfiles ${n * 2}\r\n`;
    const redraw = '\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[G';
    expect(render(['before\r\n', frame(1), redraw, frame(2), redraw, frame(3), 'after\r\n'])).toEqual(['before', 'status 3', 'files 6', 'after']);
  });

  it('makes lines final as they scroll off the page, so rewrites reach only the page', () => {
    const out: string[] = [];
    const t = new CastText(2, (l) => out.push(l));
    t.write('1\r\n2\r\n3\r\n');
    expect(out).toEqual(['1', '2']);
    t.write('\x1b[5A\rX');
    t.end();
    expect(out).toEqual(['1', '2', 'X']);
  });

  it('settle() makes the lines above the cursor final, the cursor\'s own line stays open', () => {
    const out: string[] = [];
    const t = new CastText(24, (l) => out.push(l));
    t.write('a\r\nb\r\n50%');
    t.settle();
    expect(out).toEqual(['a', 'b']);
    t.write('\r100%\r\n');
    t.end();
    expect(out).toEqual(['a', 'b', '100%']);
  });

  it('backspace, tab and cursor moves land where a terminal puts them', () => {
    expect(render(['ab\bc\r\n', 'a\tb\r\n', 'abcdef\x1b[3Dx\x1b[1Cy\r\n', 'abc\x1b[5Gz\r\n'])).toEqual(['ac', 'a       b', 'abcxey', 'abc z']);
  });

  it('a cleared screen keeps what was on it; positioning writes into the page', () => {
    expect(render(['old\r\n\x1b[2J\x1b[H', 'new\r\n'])).toEqual(['old', 'new']);
    expect(render(['\x1b[3;1Hthird\x1b[1;1Hfirst\r\n'], 5)).toEqual(['first', '', 'third']);
  });
});
