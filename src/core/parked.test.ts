import { describe, expect, it } from 'vitest';
import { driveWatchdog } from '../../test/helpers/watchdog-harness.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { PARKED_MS, type Signal } from './watchdog-types.js';

const MIN = 60_000;

function harness() {
  const { wd, at } = driveWatchdog({ screenQuietMs: 3 * MIN, toolGapMs: 15 * MIN, settleMs: 1_500 });
  const screen = (text: string): Signal => ({ kind: 'screen', snapshot: snapshotOf(text, { cursor: 'below' }) });
  return { wd, at, screen };
}

/** vitest 4.1.12 --watch after one passing run, as it draws it (colours aside). */
const VITEST = ' ✓ a.test.js (1 test) 2ms\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n\n PASS  Waiting for file changes...\n       press h to show help, press q to quit';
const TSC = '[1:32:44 AM] Starting compilation in watch mode...\n\n[1:32:44 AM] Found 0 errors. Watching for file changes.';

describe('parked jobs: a watch mode waiting for keys it will never get', () => {
  it('vitest --watch: blocked parked once its footer and the screen stood still for PARKED_MS with an idle tree; escalated once, never answered', () => {
    const h = harness();
    h.at(1_000, h.screen(VITEST));
    h.at(1_000 + PARKED_MS - 1);
    expect(h.wd.state).toBe('running');
    h.at(1_000 + PARKED_MS);
    expect(h.wd.state).toBe('blocked');
    expect(h.wd.reason).toMatchObject({ code: 'parked', rule: 'vitest-watch', detail: 'vitest' });
    h.at(8 * 60 * MIN);
    expect(h.wd.actions).toHaveLength(1);
    expect(h.wd.actions[0]).toMatchObject({ kind: 'escalate', reason: 'parked', since: 1_000 });
    expect(h.wd.actions[0]!.text).toBe('vitest is watching for changes and will never end by itself');
    expect(h.wd.actions[0]!.keys).toBeUndefined();
  });

  it('a tool gap shorter than the parked time still ends parked, not hung: the footer says more', () => {
    const { wd, at } = driveWatchdog({ screenQuietMs: 1_000, toolGapMs: 2_000, settleMs: 1_000 });
    at(0, { kind: 'screen', snapshot: snapshotOf(VITEST, { cursor: 'below' }) });
    at(PARKED_MS);
    expect(wd.history.map((t) => `${t.to}/${t.reason.code}`)).toEqual(['queued/submitted', 'running/started', 'blocked/parked']);
  });

  it('tsc --watch is parked too', () => {
    const h = harness();
    h.at(0, h.screen(TSC));
    h.at(PARKED_MS);
    expect(h.wd.reason).toMatchObject({ code: 'parked', rule: 'tsc-watch', detail: 'tsc' });
  });

  it('not while the process tree works; a re-run (the footer leaves) ends the episode, and the next footer is parked again', () => {
    const h = harness();
    h.at(0, { kind: 'proc', busy: true });
    h.at(500, h.screen(VITEST));
    h.at(30_000);
    expect(h.wd.state).toBe('running');
    h.at(31_000, { kind: 'proc', busy: false });
    expect(h.wd.reason.code).toBe('parked');
    h.at(40_000, h.screen(' RERUN  a.test.js x1\n\n ✓ a.test.js (1 test) 3ms'));
    expect(h.wd.state).toBe('running');
    expect(h.wd.reason.code).toBe('screen');
    h.at(41_000, h.screen(`${VITEST}\n`));
    h.at(41_000 + PARKED_MS);
    expect(h.wd.reason.code).toBe('parked');
    expect(h.wd.actions.map((a) => a.reason)).toEqual(['parked', 'parked']);
  });

  it('a screen that keeps showing new things under a watch footer is not parked before it stands still', () => {
    const h = harness();
    for (let t = 0; t < 30_000; t += 1_000) h.at(t, h.screen(`compiled ${t / 1_000} modules\n${VITEST}`));
    expect(h.wd.state).toBe('running');
  });

  it('dev servers are not parked: vite dev and next dev serve, that is their work', () => {
    const h = harness();
    h.at(0, h.screen('  VITE v7.1.3  ready in 312 ms\n\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: use --host to expose\n  ➜  press h + enter to show help'));
    h.at(2 * MIN);
    expect(h.wd.state).toBe('running');
  });
});

describe('a menu with a status line under its footer and a blinking marker no list names', () => {
  const menu = (marker: string, secs: number) =>
    `◇ Pick a task\n❯ build\n  test\n  deploy\n\n↑/↓ move · enter select · q quit\n${marker} waiting · ${secs}s`;

  it('blocked unknown-dialog (menu) at the settle time after it was drawn, the marker and the timer aside', () => {
    const h = harness();
    for (let t = 0; t <= 4_000; t += 500) h.at(1_000 + t, h.screen(menu(Math.floor(t / 500) % 2 ? ' ' : '◆', Math.floor(t / 1_000))));
    expect(h.wd.reason).toMatchObject({ code: 'unknown-dialog', detail: 'menu' });
    expect(h.wd.history.at(-1)!.t).toBe(2_500);
    expect(h.wd.actions.map((a) => a.kind)).toEqual(['escalate']);
  });

  it('a title glyph blinking in a state no list names (◇/◈) is told from a change by watching it', () => {
    const h = harness();
    const titled = (g: string) => `${g} Pick a task\n❯ build\n  test\n\n↑/↓ move · enter select`;
    for (let t = 0; t <= 4_000; t += 400) h.at(1_000 + t, h.screen(titled(Math.floor(t / 400) % 2 ? '◈' : '◇')));
    expect(h.wd.reason).toMatchObject({ code: 'unknown-dialog', detail: 'menu' });
    expect(h.wd.history.at(-1)!.t).toBe(2_500);
  });
});
