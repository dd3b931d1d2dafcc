import { describe, expect, it } from 'vitest';
import { EXIT_STATUS } from './outcome.js';
import { reasonInWords } from './reason-words.js';
import { REASONS } from './task-state.js';

describe('reasonInWords', () => {
  it('has words for every reason code of every state: none reaches a page as a bare code', () => {
    for (const code of [...Object.values(REASONS).flat(), ...EXIT_STATUS.map((r) => r.reason)]) {
      const words = reasonInWords({ code, exit_code: 1 });
      expect(words, code).not.toBe(code);
      expect(words, code).toMatch(/ /);
    }
  });

  it('says how a process ended, and a probe, a budget, by name', () => {
    expect(reasonInWords({ code: 'exit', exit_code: 0 })).toBe('finished (exit code 0)');
    expect(reasonInWords({ code: 'exit', exit_code: 2 })).toBe('failed (exit code 2)');
    expect(reasonInWords({ code: 'signal', exit_code: 143, signal: 'SIGTERM' })).toBe('killed by SIGTERM');
    expect(reasonInWords({ code: 'probe:loop', detail: 'the same 3 calls 5 times\nmore' })).toBe('paused by the loop check: the same 3 calls 5 times');
    expect(reasonInWords({ code: 'budget:tokens' })).toBe('its tokens budget ran out');
    expect(reasonInWords({ code: 'start-failed', detail: 'no such program: clude' })).toBe('it could not be started (bad cwd, no such program): no such program: clude');
  });

  it('leaves the question out of a block that asks one (the page shows it whole), and cuts a long detail', () => {
    expect(reasonInWords({ code: 'prompt', detail: 'Delete everything? [y/N]' })).toBe('waiting at a question');
    expect(reasonInWords({ code: 'hung', detail: 'x'.repeat(500) })).toHaveLength('stuck: nothing moved for too long: '.length + 200);
  });
});
