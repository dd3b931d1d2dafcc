import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { rng } from '../../test/helpers/rng.js';
import { fingerprintRows } from '../core/screen-snapshot.js';
import { rowStyle } from './row-read.js';
import { Screen } from './screen.js';

const COLS = 30;
const ROWS = 8;

/** Whatever moves text on a screen: printing, line ends, cursor moves, erases, scrolls, inserts and deletes, regions, buffers, resets. */
const OPS: ReadonlyArray<(r: () => number) => string> = [
  (r) => 'word'.repeat(1 + Math.floor(r() * 4)) + ' ',
  () => '\r\n',
  () => '\n',
  () => '\r',
  (r) => `\x1b[${1 + Math.floor(r() * ROWS)};${1 + Math.floor(r() * COLS)}H`,
  (r) => `\x1b[${Math.floor(r() * 3)}J`,
  (r) => `\x1b[${Math.floor(r() * 3)}K`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}L`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}M`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}S`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)}T`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}@`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}P`,
  (r) => `\x1b[${1 + Math.floor(r() * 5)}X`,
  (r) => `\x1b[${1 + Math.floor(r() * 3)};${4 + Math.floor(r() * 4)}r`,
  () => '\x1b[r',
  () => '\x1b[?1049h',
  () => '\x1b[?1049l',
  () => '\x1bM',
  () => '\x1bD',
  () => '\x1b#8',
  () => '\x1bc',
  () => '\x1b[!p',
  () => '\x1b[4h',
  () => '\x1b[4l',
  () => '\x1b[?6h',
  () => '\x1b[?6l',
  () => '\x1b[?7l',
  () => '\x1b[?7h',
  () => '日本',
  () => '\t',
  () => '\x08',
  // Attributes: a row's style (reverse video, colours) is carried over from the last snapshot like its text.
  () => '\x1b[7m',
  () => '\x1b[27m',
  (r) => `\x1b[4${Math.floor(r() * 8)}m`,
  (r) => `\x1b[3${Math.floor(r() * 8)}m`,
  () => '\x1b[0m',
];

function stylesOf(term: InstanceType<typeof xterm.Terminal>, rows: readonly string[]): Array<string | null> {
  const b = term.buffer.active;
  return rows.map((text, y) => (text ? rowStyle(b.getLine(b.baseY + y)!, term.cols, b.getNullCell()) : null));
}

function rowsOf(term: InstanceType<typeof xterm.Terminal>): string[] {
  const b = term.buffer.active;
  return Array.from({ length: term.rows }, (_, y) => (b.getLine(b.baseY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
}

/** A random session on a Screen and on a bare terminal side by side, the Screen's snapshots checked against full reads. */
async function session(seed: number, prefill: string): Promise<void> {
  const r = rng(seed);
  const screen = new Screen(COLS, ROWS);
  const ref = new xterm.Terminal({ cols: COLS, rows: ROWS, scrollback: 500, allowProposedApi: true });
  await screen.write(prefill);
  await new Promise<void>((done) => ref.write(prefill, done));
  for (let step = 0; step < 400; step++) {
    let data = '';
    for (let k = 1 + Math.floor(r() * 4); k > 0; k--) data += OPS[Math.floor(r() * OPS.length)]!(r);
    await screen.write(data);
    await new Promise<void>((done) => ref.write(data, done));
    if (r() < 0.03) {
      const cols = 20 + Math.floor(r() * 20);
      const rows = 5 + Math.floor(r() * 6);
      screen.resize(cols, rows);
      ref.resize(cols, rows);
    }
    // Not every step is looked at: marks add up between snapshots, as between samples.
    if (r() < 0.6) {
      const snap = screen.snapshot();
      const rows = rowsOf(ref);
      expect(snap.rows, `seed ${seed} step ${step} after ${JSON.stringify(data)}`).toEqual(rows);
      // The fingerprint, folded again only from the first row read, is the one of all the rows.
      expect(snap.fingerprint, `fingerprint, seed ${seed} step ${step}`).toBe(fingerprintRows(rows));
      // Some rows' styles are read, some not, as a dialog check reads them: those not read must not be taken on as read.
      if (r() < 0.5) expect(rows.map((_, y) => snap.styleOf!(y)), `styles, seed ${seed} step ${step}`).toEqual(stylesOf(ref, rows));
      else if (r() < 0.5) snap.styleOf!(Math.floor(r() * rows.length));
    }
  }
  screen.dispose();
  ref.dispose();
}

describe('Screen snapshots read only the rows xterm marked', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('match a full read (text, style and fingerprint) after every step of a random session (seed %i)', async (seed) => {
    await session(seed, '');
  });

  it.each([9, 10, 11, 12])('match a full read with the scrollback full, where a scroll no longer moves the page\'s place (seed %i)', async (seed) => {
    // 600 lines fill the 500 lines of scrollback: from here baseY stays at 500 while lines scroll through.
    await session(seed, Array.from({ length: 600 }, (_, i) => `\x1b[3${i % 8}mfill ${i}\x1b[0m\r\n`).join(''));
  });
});
