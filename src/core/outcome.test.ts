import { describe, expect, it } from 'vitest';
import { exitStatus, fromWire, isSuccess, outcomeOf, shellExitCode, wireReason } from './outcome.js';

describe('outcome: one meaning of success and exit status', () => {
  it.each([
    [{ code: 'exit', exitCode: 0, signal: null }, true, 0],
    [{ code: 'exit', exitCode: 3, signal: null }, false, 3],
    [{ code: 'signal', exitCode: null, signal: 'SIGKILL' }, false, 137],
    [{ code: 'turn-ended', exitCode: 130, signal: null }, true, 0],
    [{ code: 'escalated', exitCode: 0, signal: null }, false, 1],
    [{ code: 'cancelled', exitCode: 0, signal: null }, false, 0],
    [{ code: 'budget:wall', exitCode: null, signal: 'SIGTERM' }, false, 143],
    [{ code: 'interrupted' }, false, 0],
  ])('%j → success %s, exit status %d', (reason, success, status) => {
    expect(isSuccess(reason)).toBe(success);
    expect(exitStatus(reason)).toBe(status);
    expect(outcomeOf(reason).success).toBe(success);
  });

  it('carries the exit status, not the raw code, on the wire, and reads back the same success', () => {
    const w = wireReason({ code: 'escalated', exitCode: 0, signal: null, detail: 'refused claim' });
    expect(w).toEqual({ code: 'escalated', detail: 'refused claim', exit_code: 1, signal: null });
    expect(isSuccess(fromWire(w))).toBe(false);
    const t = wireReason({ code: 'turn-ended', exitCode: 130, signal: null });
    expect(t.exit_code).toBe(0);
    expect(isSuccess(fromWire(t))).toBe(true);
  });

  it('leaves exit fields off reasons that are not endings', () => {
    expect(wireReason({ code: 'prompt', rule: 'yn', class: 'confirm' })).toEqual({ code: 'prompt', rule: 'yn', class: 'confirm' });
  });

  it('numbers signals the Linux way', () => {
    expect(shellExitCode({ exitCode: null, signal: 'SIGHUP' })).toBe(129);
    expect(shellExitCode({ exitCode: null, signal: 'SIGINT' })).toBe(130);
  });
});
