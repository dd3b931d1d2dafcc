import { describe, expect, it } from 'vitest';
import { driveWatchdog } from '../../test/helpers/watchdog-harness.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { fingerprintRows, type ScreenSnapshot } from './screen-snapshot.js';
import { ReplyEchoFilter, isTerminalReply, stripReplyEchoes, withoutReplyEchoes } from './reply-echo.js';

const Q = 'Continue? [y/N] ';

describe('replies echoed by the tty', () => {
  // What xterm.js answers (the daemon's screen) and what common terminals add, as ECHOCTL shows them.
  const replies: Record<string, string> = {
    DA1: '^[[?1;2c',
    'DA1 (VT400)': '^[[?64;1;2;6;9;15;18;21;22c',
    DA2: '^[[>0;276;0c',
    DA3: '^[P!|00000000^[\\',
    DSR: '^[[0n',
    CPR: '^[[12;17R',
    DECXCPR: '^[[?12;17;1R',
    DECRQM: '^[[?2026;2$y',
    'ANSI DECRQM': '^[[4;2$y',
    'window size': '^[[8;24;80t',
    'kitty keyboard': '^[[?0u',
    'DECRQSS SGR': '^[P1$r0m^[\\',
    'DECRQSS invalid': '^[P0$r^[\\',
    XTVERSION: '^[P>|xterm.js(6.0.0)^[\\',
    'OSC 11 (ST)': '^[]11;rgb:0000/0000/0000^[\\',
    'OSC 10 (BEL)': '^[]10;rgb:ffff/ffff/ffff^G',
    'OSC 4': '^[]4;1;rgb:cdcd/0000/0000^[\\',
  };
  for (const [name, echo] of Object.entries(replies)) {
    it(`takes ${name} out of the row after a question`, () => {
      expect(stripReplyEchoes(Q + echo).row).toBe('Continue? [y/N]');
    });
  }

  it('takes several replies in a row, and counts what it took before the cursor', () => {
    const row = `${Q}^[[?1;2c^[[>0;276;0c`;
    expect(stripReplyEchoes(row, row.length)).toEqual({ row: 'Continue? [y/N]', before: 20 });
  });

  it('leaves text that only looks like the start of one', () => {
    for (const row of ['press ^[ to leave', 'caret ^[[A is an arrow', 'a^[[1;2x b']) expect(stripReplyEchoes(row).row).toBe(row);
  });

  it('gives the same snapshot back when no row holds ^[', () => {
    const snap = snapshotOf(Q);
    expect(withoutReplyEchoes(snap)).toBe(snap);
  });

  it('filters a run of snapshots as withoutReplyEchoes does each alone, rows kept from the last one or not', () => {
    const f = new ReplyEchoFilter();
    const frames = ['⠋', '⠙', '⠹'];
    const snaps: ScreenSnapshot[] = [];
    const rows = ['$ ./ask', 'working ⠋', '', ''];
    // One row at a time changes, as a spinner's look does: an echo comes on one row, goes, comes on another.
    const steps: Array<[number, string]> = [[1, 'working ⠙'], [2, `${Q}^[[?1;2c`], [1, 'working ⠹'], [2, Q], [3, '^[[0n'], [3, ''], [0, 'press ^[ to leave']];
    snaps.push(snap(rows));
    for (const [y, row] of steps) {
      rows[y] = row;
      snaps.push(snap(rows));
    }
    snaps.push(snap(['a', `${Q}^[[?1;2c`]), snap(frames));
    for (const s of snaps) expect(f.apply(s)).toEqual(withoutReplyEchoes(s));
    expect(f.apply(snaps[2]!).rows[2]).toBe('Continue? [y/N]');
    const plain = snaps.at(-1)!;
    expect(f.apply(plain)).toBe(plain);
  });

  it('moves the cursor back over the echo on its row, keeping the fingerprint', () => {
    const snap = snapshotOf(`$ ./ask\n${Q}^[[?1;2c`);
    const clean = withoutReplyEchoes(snap);
    expect(clean.rows[1]).toBe('Continue? [y/N]');
    expect(clean.cursor).toEqual({ x: snap.cursor.x - 8, y: 1 });
    expect(clean.fingerprint).toBe(snap.fingerprint);
  });

  it('takes out an echo the tty wrapped onto the next rows, and puts the cursor back after the question', () => {
    const cols = 30;
    const echo = `${Q}^[[?1;2c^[[>0;276;0c^[P1$r0m^[\\`;
    const laid = [echo.slice(0, cols), echo.slice(cols)];
    const rows = ['$ ./ask', ...laid, '', ''];
    const snap = { rows, cols, cursor: { x: laid[1]!.length, y: 2 }, alternate: false, fingerprint: fingerprintRows(rows) };
    const clean = withoutReplyEchoes(snap);
    expect(clean.rows).toEqual(['$ ./ask', 'Continue? [y/N]', '', '', '']);
    expect(clean.cursor).toEqual({ x: Q.length, y: 1 });
    // A full row with no echo is left as it is, the next row too.
    const full = 'x'.repeat(cols);
    const kept = withoutReplyEchoes({ ...snap, rows: [full, 'tail', `${Q}^[[0n`], cursor: { x: 0, y: 0 } });
    expect(kept.rows).toEqual([full, 'tail', 'Continue? [y/N]']);
    expect(kept.cursor).toEqual({ x: 0, y: 0 });
  });

  it('keeps a cursor just past a full row on that row, in its last column', () => {
    const cols = 15;
    const rows = ['Continue? [y/N]', '^[[0n'];
    const clean = withoutReplyEchoes({ rows, cols, cursor: { x: 5, y: 1 }, alternate: false, fingerprint: fingerprintRows(rows) });
    expect(clean.rows).toEqual([rows[0], '']);
    expect(clean.cursor).toEqual({ x: cols - 1, y: 0 });
  });

  it('the watchdog blocks on the question with the echo after it, by the rule that names it', () => {
    const { wd, at } = driveWatchdog({ screenQuietMs: 180_000, toolGapMs: 900_000, settleMs: 1_500 });
    at(1_000, { kind: 'screen', snapshot: snapshotOf(`${Q}^[[?1;2c^[[>0;276;0c`) });
    at(3_000);
    expect(wd.state).toBe('blocked');
    expect(wd.reason).toMatchObject({ code: 'prompt', rule: 'generic-yes-no' });
    expect(wd.actions[0]!.prompt).toBe('Continue? [y/N]');
  });

  it('tells a terminal\'s replies, as they arrive on its input, from what a person types', () => {
    for (const r of ['\x1b[?64;1;2;6;9;15;18;21;22c', '\x1b[>41;390;0c', '\x1b[5;1R', '\x1b[0n', '\x1bP1$r0m\x1b\\', '\x1b]11;rgb:0000/0000/0000\x07', '\x1b[?1;2c\x1b[>0;276;0c']) {
      expect(isTerminalReply(r), JSON.stringify(r)).toBe(true);
    }
    for (const k of ['y', 'y\r', '\x1b', '\x1b[A', '\x1b[15~', '\x1b[Z', '\x1b[200~pasted\x1b[201~', '\x1b[97;5u', '\x1b[?1;2cy', 'x\x1b[0n']) {
      expect(isTerminalReply(k), JSON.stringify(k)).toBe(false);
    }
  });
});

/** A snapshot of exactly these rows (a new array: each look's rows are). */
function snap(rows: readonly string[]): ScreenSnapshot {
  return { rows: [...rows], cols: 120, cursor: { x: 0, y: 0 }, alternate: false, fingerprint: fingerprintRows(rows) };
}
