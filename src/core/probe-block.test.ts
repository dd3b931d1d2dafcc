import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { ManualClock } from './clock.js';
import { Watchdog } from './watchdog.js';
import { shippedRules } from '../../test/helpers/rules.js';
import { driveWatchdog } from '../../test/helpers/watchdog-harness.js';
import type { Signal } from './watchdog-types.js';

function harness() {
  const { wd, at } = driveWatchdog({ screenQuietMs: 180_000, toolGapMs: 900_000, settleMs: 1_500, verifyMs: 5_000 });
  const screen = (text: string, o: Parameters<typeof snapshotOf>[1] = { cursor: 'below' }): Signal => ({ kind: 'screen', snapshot: snapshotOf(text, o) });
  const states = () => wd.history.map((h) => `${h.t}:${h.to}:${h.reason.code}${h.reason.detail ? `:${h.reason.detail}` : ''}`);
  return { wd, at, screen, states };
}

const LOOP = 'Bash ls -la ran 4 times with the same result';
const probe: Signal = { kind: 'probe', probe: 'repeated-action', text: LOOP };
const tool = (phase: 'start' | 'finish', id: string): Signal => ({ kind: 'tool', event: { phase, name: 'Bash', id } });

describe('a probe escalation binds (issue 10.1)', () => {
  it('blocks as probe:<name> with the verdict as its detail, one escalation, never an answer', () => {
    const h = harness();
    h.at(1_000, h.screen('● Bash(ls -la)'));
    h.at(2_000, probe);
    expect(h.states().at(-1)).toBe(`2000:blocked:probe:repeated-action:${LOOP}`);
    expect(h.wd.actions).toEqual([expect.objectContaining({ kind: 'escalate', reason: 'probe:repeated-action', layer: 'probe', text: `repeated-action: ${LOOP}` })]);
    h.at(2_500, probe);
    h.at(2_600, { kind: 'probe', probe: 'repeated-failure', text: 'Bash failed 3 times in a row' });
    expect(h.wd.actions).toHaveLength(1);
    expect(h.wd.reason.code).toBe('probe:repeated-action');
  });

  it('holds while the agent goes on (screen, tool calls, its own word) and ends only when a person acts', () => {
    const h = harness();
    h.at(1_000, probe);
    h.at(1_500, h.screen('⎿  Interrupted · What should Claude do instead?'));
    h.at(2_000, tool('start', 'a'));
    h.at(2_100, tool('finish', 'a'));
    h.at(2_200, { kind: 'agent', signal: { state: 'working', source: 'claude-hook', detail: 'PreToolUse', hint: false } });
    h.at(2_300, { kind: 'proc', busy: true });
    h.at(60 * 60_000);
    expect(h.wd.reason.code).toBe('probe:repeated-action');
    h.at(60 * 60_000 + 1, { kind: 'person', action: 'continue', by: 'human:ann' });
    // Going on, the job is what it was: here a quiet screen over a busy child.
    expect(h.states().slice(-2)).toEqual([`${60 * 60_000 + 1}:running:continued:human:ann`, `${60 * 60_000 + 1}:running:quiet-child-busy`]);
  });

  it('a person needed at a prompt keeps that block; the probe still pages', () => {
    const h = harness();
    h.at(1_000, h.screen("rm: remove regular file 'a.txt'? ", {}));
    h.at(3_000);
    expect(h.wd.reason.code).toBe('prompt');
    h.at(3_500, probe);
    expect(h.wd.reason.code).toBe('prompt');
    expect(h.wd.actions.map((a) => a.reason)).toEqual(['prompt', 'probe:repeated-action']);
  });

  it('a person\'s cancel is no continue: the block holds until the job ends', () => {
    const h = harness();
    h.at(1_000, probe);
    h.at(2_000, { kind: 'person', action: 'cancel', by: 'human:ann' });
    expect(h.wd.reason.code).toBe('probe:repeated-action');
  });

  it('a hang becomes the probe block; a person signal without a probe block changes nothing', () => {
    const h = harness();
    h.at(0, { kind: 'person', action: 'send', by: 'human:ann' });
    expect(h.wd.state).toBe('running');
    h.at(901_000);
    expect(h.wd.reason.code).toBe('hung');
    h.at(902_000, probe);
    expect(h.wd.reason.code).toBe('probe:repeated-action');
  });
});

describe('a verdict outlives the process', () => {
  const exit = (exitCode: number, more: Partial<Extract<Signal, { kind: 'exit' }>> = {}): Signal => ({ kind: 'exit', exitCode, signal: null, ...more });

  it('a process that exits 0 on its own while blocked on a probe ends escalated, the verdict in its detail', () => {
    const h = harness();
    h.at(1_000, probe);
    h.at(2_000, exit(0));
    expect(h.wd.state).toBe('done');
    expect(h.wd.reason).toMatchObject({ code: 'escalated', exitCode: 0 });
    expect(h.wd.reason.detail).toBe(`it exited on its own while blocked on probe:repeated-action (${LOOP})`);
  });

  it('killed by a signal nightshift did not send while blocked on a probe: escalated too', () => {
    const h = harness();
    h.at(1_000, probe);
    h.at(2_000, { kind: 'exit', exitCode: null, signal: 'SIGSEGV' });
    expect(h.wd.reason).toMatchObject({ code: 'escalated', signal: 'SIGSEGV' });
  });

  it('a person who continued it cleared the verdict: its own exit is its outcome', () => {
    const h = harness();
    h.at(1_000, probe);
    h.at(2_000, { kind: 'person', action: 'continue', by: 'human:ann' });
    h.at(3_000, exit(0));
    expect(h.wd.reason).toMatchObject({ code: 'exit', exitCode: 0 });
  });

  it('a stop nightshift chose keeps its own reason (timeout, cancelled)', () => {
    const h = harness();
    h.at(1_000, probe);
    h.at(2_000, { kind: 'person', action: 'cancel', by: 'human:ann' });
    h.at(3_000, exit(0, { stoppedFor: 'cancelled' }));
    expect(h.wd.reason).toMatchObject({ code: 'cancelled' });
  });

  it('a verdict paged while a prompt held the job stands too', () => {
    const h = harness();
    h.at(1_000, h.screen("rm: remove regular file 'a.txt'? ", {}));
    h.at(3_000);
    h.at(3_500, probe);
    h.at(4_000, exit(0));
    expect(h.wd.reason.code).toBe('escalated');
  });

  it('an adopted job blocked on a probe (the board\'s state after a restart) ends escalated when it exits', () => {
    const clock = new ManualClock(10_000);
    const wd = new Watchdog(shippedRules, clock, { screenQuietMs: 180_000, toolGapMs: 900_000, settleMs: 1_500, verifyMs: 5_000 } as never);
    wd.resume({ state: 'blocked', reason: { code: 'probe:fake-completion', detail: 'claims done' }, since: 5_000 });
    clock.set(12_000);
    wd.observe(exit(0));
    expect(wd.reason).toMatchObject({ code: 'escalated', detail: 'it exited on its own while blocked on probe:fake-completion (claims done)' });
  });

  it('no verdict, no change: a clean exit is an exit', () => {
    const h = harness();
    h.at(1_000, exit(0));
    expect(h.wd.reason).toMatchObject({ code: 'exit', exitCode: 0 });
  });
});
