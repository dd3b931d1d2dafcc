import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../core/clock.js';
import type { ScreenSnapshot } from '../core/screen-snapshot.js';
import { LIVE_PIECE, Screen } from '../screen/screen.js';
import { ScreenFeed } from './screen-feed.js';

const screens: Screen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

/** A feed on a real Screen whose clock the test moves: looks are counted, timers are real. */
function feedOf(deadline: () => number | undefined = () => undefined) {
  // A live job's screen, as JobCore makes it: xterm gets its writes in pieces and parses them in slices.
  const screen = new Screen(80, 24, LIVE_PIECE);
  screens.push(screen);
  const clock = new ManualClock(0);
  const seen: ScreenSnapshot[] = [];
  const flow: string[] = [];
  const feed = new ScreenFeed(screen, clock, (s) => seen.push(s), deadline, { pause: () => flow.push('pause'), resume: () => flow.push('resume') });
  return { feed, clock, seen, flow, screen };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** 6 s of output, a chunk every 10 ms of the feed's clock, each given time to be parsed. */
async function stream(f: ReturnType<typeof feedOf>, chunk: (i: number) => string): Promise<void> {
  for (let i = 1; i <= 600; i++) {
    f.clock.set(i * 10);
    f.feed.push(Buffer.from(chunk(i)));
    await turn();
  }
}

const lines = (i: number) => Array.from({ length: 5 }, (_, k) => `line ${i * 5 + k}\r\n`).join('');

describe('ScreenFeed looks', () => {
  it('looks at pages scrolling by about once a second, and at the pause after them', async () => {
    const f = feedOf();
    await stream(f, lines);
    expect(f.seen.length).toBeGreaterThanOrEqual(5);
    expect(f.seen.length).toBeLessThanOrEqual(8);
    const before = f.seen.length;
    f.clock.set(6_100);
    await vi.waitFor(() => expect(f.seen.length).toBe(before + 1), { timeout: 2_000 });
    expect(f.seen.at(-1)!.rows).toContain('line 3004');
  });

  it('looks every 100 ms at a line redrawn in place', async () => {
    const f = feedOf();
    await stream(f, (i) => `\r${i}%`);
    expect(f.seen.length).toBeGreaterThanOrEqual(58);
  });

  it('looks every 100 ms at scrolling output while a decision is near', async () => {
    const f = feedOf(() => 1e9);
    let clock: ManualClock | undefined;
    // A prompt settling: its deadline always half a second ahead.
    const near = feedOf(() => clock!.now() + 500);
    clock = near.clock;
    await stream(f, lines);
    await stream(near, lines);
    expect(f.seen.length).toBeLessThanOrEqual(8);
    expect(near.seen.length).toBeGreaterThanOrEqual(58);
  });

  it('holds what comes while xterm parses a batch, and holds the source past 16M: xterm is never handed 50 MB', async () => {
    const f = feedOf();
    // A first batch xterm parses in slices (show-cursor sequences: nothing to collapse)...
    f.feed.push(Buffer.from(Array.from({ length: 100_000 }, (_, i) => `\x1b[?25hstep ${i}\r\n`).join('')));
    // ...and 64 MB arriving meanwhile, as a reader thread's queued batches do.
    const chunk = Buffer.from(Array.from({ length: 4_000 }, (_, i) => `line ${i} of a flood\r\n`).join(''));
    let pushed = 0;
    for (let i = 0; pushed < 64e6; i++, pushed += chunk.length) f.feed.push(chunk);
    f.feed.push(Buffer.from('the end\r\n'));
    expect(f.flow).toEqual(['pause']);
    await f.feed.settled();
    expect(f.flow).toEqual(['pause', 'resume']);
    // The watchdog's last look is the whole of it: a look that fell while the second batch was parsed in pieces
    // once took the torn screen ("line 3824 o") and left none for the end.
    expect(f.seen.at(-1)!.rows.filter((r) => r !== '').at(-1)).toBe('the end');
  });

  it('keeps looking through a flood that never lets up and has nothing to collapse, each look at a whole screen', async () => {
    const f = feedOf();
    // Show-cursor sequences: nothing to collapse. The source honours the feed's flow control, as the PTY host
    // does, and refills what was taken while xterm parses: every written() finds 16M held and starts the next.
    const chunk = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `\x1b[?25hflood line ${i} ${'.'.repeat(20)}\r\n`).join(''));
    const paused = () => f.flow.filter((x) => x === 'pause').length > f.flow.filter((x) => x === 'resume').length;
    let sent = 0;
    let turns = 0;
    while (sent < 80e6) {
      if (!paused()) {
        f.feed.push(chunk);
        sent += chunk.length;
      }
      f.clock.set(++turns * 50);
      await turn();
    }
    const during = f.seen.length;
    await f.feed.settled();
    expect(f.flow.filter((x) => x === 'pause').length, 'batches started by written()').toBeGreaterThanOrEqual(3);
    // Looked at while it flooded, not only once it was over; and never mid-line.
    expect(during).toBeGreaterThanOrEqual(3);
    for (const snap of f.seen) expect(snap.rows.filter((r) => r !== '').at(-1)).toMatch(/^flood line \d+ \.{20}$/);
  });
});
