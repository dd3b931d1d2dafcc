import xterm from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import { describe, expect, it } from 'vitest';
import { rng } from '../../test/helpers/rng.js';
import { collapseScrolled, linesToKeep } from './collapse.js';
import { SCROLLBACK, Screen } from './screen.js';

const COLS = 40;
const ROWS = 10;
const KEEP = linesToKeep(ROWS, SCROLLBACK);

/** Everything a terminal holds after `chunks`: scrollback, viewport, colours, cursor, as the serialize addon writes it. */
async function state(chunks: string[]): Promise<string> {
  const term = new xterm.Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
  const ser = new serializeAddon.SerializeAddon();
  term.loadAddon(ser);
  for (const c of chunks) await new Promise<void>((r) => term.write(c, r));
  const b = term.buffer.active;
  const out = `${ser.serialize({ scrollback: SCROLLBACK })}|${b.cursorX},${b.cursorY},${b.baseY}`;
  term.dispose();
  return out;
}

function flood(seed: number, lines: number): string {
  const r = rng(seed);
  const words = ['alpha', 'β-test', '日本語', 'x\ty', '\x1b[1;31mred\x1b[0m', '\x1b[44m', '\x1b[m', 'a'.repeat(55), '🙂', '\x1b[38;5;208mo'];
  let s = '';
  for (let i = 0; i < lines; i++) {
    const n = Math.floor(r() * 6);
    for (let k = 0; k < n; k++) s += words[Math.floor(r() * words.length)]! + ' ';
    s += '\r\n';
  }
  return s + 'tail without a line end \x1b[32m';
}

describe('collapseScrolled', () => {
  it.each([1, 2, 3, 4, 5])('leaves the terminal exactly as the whole flood does (seed %i)', async (seed) => {
    // Content above, the cursor mid-screen and a colour in force when the flood starts.
    const before = 'old row one that is long\r\nold two\r\n\x1b[33mhalf a line ';
    const data = flood(seed, 3 * KEEP);
    const collapsed = collapseScrolled(data, KEEP);
    expect(collapsed.length).toBeLessThan(data.length);
    expect(await state([before, collapsed])).toBe(await state([before, data]));
  });

  it.each([1, 2, 3])('collapses a flood whose lines erase to their end (EL, as ls --color writes), as strings and bytes, leaving the terminal as the whole flood does (seed %i)', async (seed) => {
    const before = 'old row\r\n\x1b[36mhalf ';
    const el = ['\x1b[K', '\x1b[0K', '\x1b[1K', '\x1b[2K', '\x1b[41m\x1b[K'];
    const data = flood(seed, 3 * KEEP)
      .split('\r\n')
      .map((line, i) => (i % 3 === 0 ? `${line}${el[i % el.length]!}` : line))
      .join('\r\n');
    const collapsed = collapseScrolled(data, KEEP);
    expect(collapsed.length).toBeLessThan(data.length / 2);
    expect(collapseScrolled(Buffer.from(data), KEEP).toString()).toBe(collapsed);
    expect(await state([before, collapsed])).toBe(await state([before, data]));
  });

  it('parses whole what moves the cursor otherwise, and what is too short to gain', () => {
    const lines = (n: number, line: string) => Array.from({ length: n }, () => line).join('');
    for (const odd of ['\x1b[2;1H', '\r', '\n', '\x1b]0;title\x07', '\x07', '\x1b[?1049h', '\x9b2J', '\x1b[38:2:1:2:3m']) {
      const data = lines(KEEP, 'text\r\n') + odd + lines(KEEP, 'more\r\n');
      expect(collapseScrolled(data, KEEP)).toBe(data);
    }
    const short = lines(KEEP, 'text\r\n');
    expect(collapseScrolled(short, KEEP)).toBe(short);
  });

  it.each([1, 2, 3])('collapses UTF-8 bytes to the bytes of the collapsed string, and they leave the terminal as the whole flood does (seed %i)', async (seed) => {
    const before = 'old row\r\n\x1b[35mhalf ';
    const data = flood(seed, 3 * KEEP);
    const bytes = collapseScrolled(Buffer.from(data), KEEP);
    expect(bytes.toString()).toBe(collapseScrolled(data, KEEP));
    expect(await state([before, bytes.toString()])).toBe(await state([before, data]));
  });

  it('parses whole, as bytes too, what moves the cursor otherwise: a C1 control is the pair C2 80-9F, other bytes from 0x80 are text', () => {
    const lines = (n: number, line: string) => Array.from({ length: n }, () => line).join('');
    for (const odd of ['\x1b[2;1H', '\r', '\n', '\x07', '\x7f', '\x9b2J', '\x85', '\x1b[38:2:1:2:3m']) {
      const data = Buffer.from(lines(KEEP, 'text\r\n') + odd + lines(KEEP, 'more\r\n'));
      expect(collapseScrolled(data, KEEP)).toBe(data);
    }
    // U+00A0..: C2 A0 and up, and C3 85 ('Å' is C3 85): printable, so collapsed.
    const text = Buffer.from(lines(KEEP, 'Å\u00a0é\r\n') + lines(KEEP, 'more\r\n'));
    expect(collapseScrolled(text, KEEP).length).toBeLessThan(text.length);
  });

  it('finds a control wherever it is, in memory aligned or not', () => {
    const lines = (n: number, line: string) => Array.from({ length: n }, () => line).join('');
    for (const odd of ['\x01', '\x1f', '\x7f', '\x85', '\r', '\x1b[2J']) {
      for (let place = 0; place < 4; place++) {
        const text = Buffer.from(lines(KEEP, 'text\r\n') + 'x'.repeat(place) + odd + lines(KEEP, 'more\r\n'));
        for (let shift = 0; shift < 4; shift++) {
          const data = Buffer.concat([Buffer.alloc(shift), text]).subarray(shift);
          expect(collapseScrolled(data, KEEP), `${JSON.stringify(odd)} at ${place}, shifted ${shift}`).toBe(data);
        }
      }
    }
  });

  it('returns bytes in memory of their own: the flood they came from is not kept alive by them', () => {
    const data = Buffer.from('first\r\n' + 'skipped\r\n'.repeat(50) + 'kept\r\n'.repeat(3));
    const out = collapseScrolled(data, 3);
    expect(out.toString()).toBe('first\r\n' + 'kept\r\n'.repeat(3));
    data.fill(0);
    expect(out.toString()).toBe('first\r\n' + 'kept\r\n'.repeat(3));
  });

  it('keeps the colour state of the lines it skips, from their last reset on', () => {
    const data = 'first\r\n' + '\x1b[31mA\x1b[0m\r\n'.repeat(10) + '\x1b[1m\x1b[44mB\r\n' + 'kept\r\n'.repeat(3);
    expect(collapseScrolled(data, 3)).toBe('first\r\n\x1b[0m\x1b[1m\x1b[44m' + 'kept\r\n'.repeat(3));
  });
});

/** Two screens given `prefix`, then `data`: one in a single write, one in 4 KB writes. */
async function wholeAndInPieces(prefix: string, data: string): Promise<{ whole: Screen; pieces: Screen }> {
  const whole = new Screen(COLS, ROWS);
  await whole.write(prefix);
  await whole.write(data);
  const pieces = new Screen(COLS, ROWS);
  await pieces.write(prefix);
  for (let i = 0; i < data.length; i += 4096) await pieces.write(data.slice(i, i + 4096));
  return { whole, pieces };
}

describe('Screen: a flood written in one piece', () => {
  it.each([1, 2, 3])('collapses a batch cut inside a CR LF at either end, as a live flood is batched: the same terminal (seed %i)', async (seed) => {
    const data = flood(seed, 3 * KEEP).replace(/tail without a line end .*$/, 'last \x1b[2Aline\r');
    const cutAt = data.indexOf('\r\n') + 1;
    const [first, batch] = [data.slice(0, cutAt), data.slice(cutAt)];
    expect(batch.startsWith('\n') && batch.endsWith('\r')).toBe(true);
    const collapsed = collapseScrolled(batch, KEEP);
    expect(collapsed.length).toBeLessThan(batch.length / 2);
    expect(await state(['old row\r\n', first, collapsed])).toBe(await state(['old row\r\n', first, batch]));
    const bytes = Buffer.from(batch);
    expect(collapseScrolled(bytes, KEEP).toString()).toBe(collapsed);
  });

  it('still parses whole a batch whose bare CR or LF is not at its very start, or whose escape other than SGR comes before the last line end', () => {
    const lines = 'line\r\n'.repeat(3 * KEEP);
    for (const bad of ['x\n' + lines, lines.slice(0, 100) + '\r' + lines, lines + '\x1b[2A' + lines, '\n\n' + lines]) {
      expect(collapseScrolled(bad, KEEP)).toBe(bad);
    }
    // After the last line end anything goes: it is parsed the same way in both.
    expect(collapseScrolled(lines + '\x1b[2Aend\r', KEEP).length).toBeLessThan(lines.length);
  });

  it('with a scroll region set, parses everything: the same rows as the same bytes in small pieces', async () => {
    const data = flood(7, 3 * KEEP) + ' '.repeat(200 * 1024) + 'end';
    const { whole, pieces } = await wholeAndInPieces('\x1b[3;8r', data);
    expect(whole.snapshot().rows).toEqual(pieces.snapshot().rows);
    expect(whole.snapshot().rows.join('')).not.toBe('');
    whole.dispose();
    pieces.dispose();
  });

  it('a big plain flood: same rows and cursor as the same bytes in small pieces', async () => {
    const data = flood(11, 4000) + '\r\n' + 'x'.repeat(140 * 1024);
    const { whole, pieces } = await wholeAndInPieces('start ', data);
    expect(whole.snapshot().rows).toEqual(pieces.snapshot().rows);
    expect(whole.snapshot().cursor).toEqual(pieces.snapshot().cursor);
    whole.dispose();
    pieces.dispose();
  });
});
