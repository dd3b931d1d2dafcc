import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { rng } from '../../test/helpers/rng.js';
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
];

function rowsOf(term: InstanceType<typeof xterm.Terminal>): string[] {
  const b = term.buffer.active;
  return Array.from({ length: term.rows }, (_, y) => (b.getLine(b.baseY + y)?.translateToString(true) ?? '').replace(/ +$/, ''));
}

describe('Screen snapshots read only the rows xterm marked', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('match a full read after every step of a random session (seed %i)', async (seed) => {
    const r = rng(seed);
    const screen = new Screen(COLS, ROWS);
    const ref = new xterm.Terminal({ cols: COLS, rows: ROWS, scrollback: 500, allowProposedApi: true });
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
      if (r() < 0.6) expect(screen.snapshot().rows, `seed ${seed} step ${step} after ${JSON.stringify(data)}`).toEqual(rowsOf(ref));
    }
    screen.dispose();
    ref.dispose();
  });
});
