import { describe, expect, it } from 'vitest';
import { EXIT_STATUS, exitStatus, fixedExitStatus, fromWire, isSuccess, outcomeOf, shellExitCode, wireReason } from './outcome.js';
import { REASONS } from './task-state.js';

/** Done reasons only the board gives (src/board/reasons.ts), and the budget and waiting reasons the daemon adds. */
const BOARD_DONE = ['interrupted', 'dependency-failed', 'start-failed'];
const MORE_DONE = ['budget:wall', 'budget:steps', 'budget:tokens', 'unanswered'];
const ALL_DONE = [...new Set([...REASONS.done, ...BOARD_DONE, ...MORE_DONE])];
/** However the process ended: cleanly, with a failure, killed, unknown. */
const ENDS: { exitCode?: number | null; signal?: string | null }[] = [
  { exitCode: 0, signal: null },
  { exitCode: 3, signal: null },
  { exitCode: null, signal: 'SIGTERM' },
  { exitCode: null, signal: 'SIGKILL' },
  {},
];

/** The process's own ends are what they say: `exit` a code and no signal, `signal` a signal. */
function endsAs(code: string, e: (typeof ENDS)[number]): boolean {
  if (code === 'exit') return typeof e.exitCode === 'number' && !e.signal;
  if (code === 'signal') return !!e.signal;
  return true;
}

describe('outcome: one meaning of success and exit status', () => {
  it.each([
    [{ code: 'exit', exitCode: 0, signal: null }, true, 0],
    [{ code: 'exit', exitCode: 3, signal: null }, false, 3],
    [{ code: 'signal', exitCode: null, signal: 'SIGKILL' }, false, 137],
    [{ code: 'turn-ended', exitCode: 130, signal: null }, true, 0],
    [{ code: 'escalated', exitCode: 0, signal: null }, false, 120],
    [{ code: 'unverified', exitCode: 0, signal: null }, false, 114],
    [{ code: 'cancelled', exitCode: 0, signal: null }, false, 121],
    [{ code: 'timeout', exitCode: 0, signal: null }, false, 124],
    [{ code: 'timeout', exitCode: null, signal: 'SIGINT' }, false, 124],
    [{ code: 'budget:wall', exitCode: null, signal: 'SIGTERM' }, false, 123],
    [{ code: 'budget:tokens', exitCode: 0, signal: null }, false, 123],
    [{ code: 'unanswered', exitCode: 0, signal: null }, false, 122],
    [{ code: 'interrupted' }, false, 119],
    [{ code: 'interrupted', exitCode: null, signal: 'SIGHUP' }, false, 119],
    [{ code: 'lost', exitCode: null, signal: null }, false, 118],
    [{ code: 'dependency-failed' }, false, 117],
    [{ code: 'start-failed' }, false, 116],
  ])('%j → success %s, exit status %d', (reason, success, status) => {
    expect(isSuccess(reason)).toBe(success);
    expect(exitStatus(reason)).toBe(status);
    expect(outcomeOf(reason).success).toBe(success);
  });

  it('gives every done reason a row in the table, and only success exits 0 however the process ended', () => {
    const rows = new Set(EXIT_STATUS.map((r) => r.reason));
    for (const code of ALL_DONE) expect(rows.has(code) || (code.startsWith('budget:') && rows.has('budget:*')), code).toBe(true);
    for (const code of ALL_DONE) {
      for (const end of ENDS.filter((e) => endsAs(code, e))) {
        const r = { code, ...end };
        expect(exitStatus(r) === 0, `${JSON.stringify(r)} → ${exitStatus(r)}`).toBe(isSuccess(r));
      }
    }
  });

  it('gives each reason nightshift stops a job for its own code, clear of what a shell or nightshift itself means', () => {
    const fixed = EXIT_STATUS.flatMap((r) => (typeof r.status === 'number' && r.status !== 0 ? [r.status] : []));
    expect(new Set(fixed).size).toBe(fixed.length);
    for (const n of fixed) {
      expect([1, 2, 70, 126, 127]).not.toContain(n);
      expect(n > 128 && n <= 192, `${n} reads as a signal`).toBe(false);
      expect(n).toBeLessThan(256);
    }
    expect(fixedExitStatus('timeout')).toBe(124);
    expect(fixedExitStatus('budget:anything')).toBe(fixedExitStatus('budget:*'));
    expect(fixedExitStatus('exit')).toBeUndefined();
    expect(fixedExitStatus('signal')).toBeUndefined();
  });

  it('carries the exit status, not the raw code, on the wire, and reads back the same success and status', () => {
    const w = wireReason({ code: 'escalated', exitCode: 0, signal: null, detail: 'refused claim' });
    expect(w).toEqual({ code: 'escalated', detail: 'refused claim', exit_code: 120, signal: null });
    expect(isSuccess(fromWire(w))).toBe(false);
    expect(exitStatus(fromWire(w))).toBe(120);
    const t = wireReason({ code: 'turn-ended', exitCode: 130, signal: null });
    expect(t.exit_code).toBe(0);
    expect(isSuccess(fromWire(t))).toBe(true);
    const timeout = wireReason({ code: 'timeout', exitCode: 0, signal: null });
    expect(timeout.exit_code).toBe(124);
    expect(exitStatus(fromWire(timeout))).toBe(124);
  });

  it('leaves exit fields off reasons that are not endings', () => {
    expect(wireReason({ code: 'prompt', rule: 'yn', class: 'confirm' })).toEqual({ code: 'prompt', rule: 'yn', class: 'confirm' });
  });

  it('numbers signals the Linux way', () => {
    expect(shellExitCode({ exitCode: null, signal: 'SIGHUP' })).toBe(129);
    expect(shellExitCode({ exitCode: null, signal: 'SIGINT' })).toBe(130);
  });
});
