import { describe, expect, it, vi } from 'vitest';
import { within } from './within.js';

describe('within', () => {
  it('gives the value when it comes first, and clears its timer', async () => {
    vi.useFakeTimers();
    try {
      const p = within(1_000, Promise.resolve(7));
      expect(await p).toBe(7);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("gives 'timeout' when the time runs out first", async () => {
    vi.useFakeTimers();
    try {
      const p = within(1_000, new Promise<number>(() => undefined));
      await vi.advanceTimersByTimeAsync(999);
      let settled = false;
      void p.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await p).toBe('timeout');
    } finally {
      vi.useRealTimers();
    }
  });

  it('passes a rejection on, and clears its timer', async () => {
    vi.useFakeTimers();
    try {
      await expect(within(1_000, Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
