/** Watchdog.resume: a job another daemon supervised, taken over in the state the board has. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { Watchdog } from './watchdog.js';
import type { Action, Signal } from './watchdog-types.js';
import type { Transition } from './task-state.js';
import { shippedRules } from '../../test/helpers/rules.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { stepper } from '../../test/helpers/watchdog-harness.js';

const MIN = 60_000;
const CONFIG = { screenQuietMs: 3 * MIN, toolGapMs: 15 * MIN, settleMs: 1_500, verifyMs: 5_000 } as const;
const ASK = "rm: remove regular file 'a.txt'? ";

function resumed(point: Parameters<Watchdog['resume']>[0], now: number) {
  const clock = new ManualClock(now);
  const wd = new Watchdog(shippedRules, clock, CONFIG as never);
  const heard: Array<Transition | Action> = [];
  wd.listen({ transition: (t) => heard.push(t), action: (a) => heard.push(a) });
  wd.resume(point);
  const at = stepper(clock, wd);
  const screen = (text: string): Signal => ({ kind: 'screen', snapshot: snapshotOf(text) });
  return { wd, heard, at, screen };
}

describe('Watchdog.resume', () => {
  it('a block on a prompt still on screen stays the same episode: no transition, no action, however long', () => {
    const h = resumed({ state: 'blocked', reason: { code: 'prompt', rule: 'rm-interactive', class: 'destructive' }, since: 1_000 }, 60_000);
    // Signals before the first screen (a process sample) must not end it.
    h.at(60_100, { kind: 'proc', busy: false });
    expect(h.wd.state).toBe('blocked');
    h.at(60_200, h.screen(ASK));
    h.at(8 * 60 * MIN);
    expect(h.wd.state).toBe('blocked');
    expect(h.heard).toEqual([]);
    // Its history begins at the board's last move.
    expect(h.wd.history.map((t) => `${t.t}:${t.to}`)).toEqual(['1000:queued', '1000:running', '1000:blocked']);
  });

  it('a prompt gone from the rebuilt screen ends the block as any cleared prompt (the board hears it)', () => {
    const h = resumed({ state: 'blocked', reason: { code: 'prompt', rule: 'rm-interactive', class: 'destructive' }, since: 1_000 }, 60_000);
    h.at(60_200, h.screen('removed a.txt\n$ '));
    expect(h.wd.state).toBe('running');
    expect(h.heard).toMatchObject([{ from: 'blocked', to: 'running', reason: { code: 'prompt-cleared' } }]);
  });

  it('a hang stays blocked through the rebuilt screen and ends with real activity', () => {
    const h = resumed({ state: 'blocked', reason: { code: 'hung' }, since: 1_000 }, 60_000);
    h.at(60_200, h.screen('working'));
    h.at(60 * MIN);
    expect(h.wd.state).toBe('blocked');
    expect(h.heard).toEqual([]);
    h.at(60 * MIN + 1, h.screen('working\nstep 2'));
    expect(h.wd.state).toBe('running');
  });

  it('a running job goes on running and an exit seen while no daemon watched keeps its time', () => {
    const h = resumed({ state: 'running', reason: { code: 'started' }, since: 1_000 }, 60_000);
    h.at(60_100, { kind: 'exit', exitCode: 5, signal: null, at: 30_000 });
    expect(h.heard).toMatchObject([{ t: 30_000, to: 'done', reason: { code: 'exit', exitCode: 5 } }]);
  });

  it('a job lost with its PTY host is done/lost with why', () => {
    const h = resumed({ state: 'running', reason: { code: 'started' }, since: 1_000 }, 60_000);
    h.at(61_000, { kind: 'exit', exitCode: null, signal: null, stoppedFor: 'lost', detail: 'the PTY host (pid 9) died' });
    expect(h.wd.reason).toMatchObject({ code: 'lost', detail: 'the PTY host (pid 9) died' });
  });
});
