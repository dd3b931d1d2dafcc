import { describe, expect, it } from 'vitest';
import { BUDGET_CHECK_MS, BUDGET_IDLE_MS, nextBudgetLook } from './budget-pace.js';

describe('nextBudgetLook', () => {
  it('looks once a second while progress or tokens move', () => {
    expect(nextBudgetLook({ now: 0, lastMs: 4_000, moved: true })).toBe(BUDGET_CHECK_MS);
  });

  it('backs off by doubling up to the idle pace while nothing moves', () => {
    const paces: number[] = [];
    let ms = BUDGET_CHECK_MS;
    for (let i = 0; i < 6; i++) paces.push((ms = nextBudgetLook({ now: 0, lastMs: ms, moved: false })));
    expect(paces).toEqual([2_000, 4_000, 8_000, 8_000, 8_000, 8_000]);
    expect(Math.max(...paces)).toBe(BUDGET_IDLE_MS);
  });

  it('never looks later than a cap falls due', () => {
    expect(nextBudgetLook({ now: 10_000, lastMs: 8_000, moved: false, wallDue: 13_000 })).toBe(3_000);
    expect(nextBudgetLook({ now: 10_000, lastMs: 8_000, moved: false, noProgressDue: 12_500, wallDue: 60_000 })).toBe(2_500);
    // The wall budget's wrap-up reserve is asked for on time too, not up to a backed-off look late.
    expect(nextBudgetLook({ now: 10_000, lastMs: 8_000, moved: false, wallDue: 60_000, wrapUpDue: 14_000 })).toBe(4_000);
  });

  it('looks no more often than once a second, even with a cap due now or past', () => {
    expect(nextBudgetLook({ now: 10_000, lastMs: 1_000, moved: false, wallDue: 10_200 })).toBe(BUDGET_CHECK_MS);
    expect(nextBudgetLook({ now: 10_000, lastMs: 1_000, moved: false, noProgressDue: 5_000 })).toBe(BUDGET_CHECK_MS);
  });
});
