import { describe, expect, it } from 'vitest';
import { deliveryText, lastPageText, slotsText } from './status-text.js';

const NOW = Date.parse('2026-01-02T03:00:00Z');
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const delivery = { notifier: 'hook', status: 'delivered' as const, round: 1, attempts: 0, delivered: at(90_000), next_try: null, error: null };

describe('slotsText', () => {
  it('says how the slots in use are spent, leaving out what is zero', () => {
    expect(slotsText({ used: 4, max: 4, running: 1, blocked: 3, starting: 0 })).toBe('4/4: 3 blocked, 1 running');
    expect(slotsText({ used: 1, max: 8, running: 0, blocked: 0, starting: 1 })).toBe('1/8: 1 starting');
    expect(slotsText({ used: 0, max: 4, running: 0, blocked: 0, starting: 0 })).toBe('0/4');
  });
});

describe('deliveryText', () => {
  it.each([
    ['sent', delivery, 'delivered 1m30s ago'],
    ['a reminder', { ...delivery, round: 3 }, 'delivered 1m30s ago (reminder 2)'],
    ['acknowledged', { ...delivery, status: 'acked' as const }, 'delivered 1m30s ago, acknowledged'],
    ['resolved before any send', { ...delivery, status: 'resolved' as const, delivered: null }, 'resolved before it was sent'],
    ['failing', { ...delivery, status: 'pending' as const, delivered: null, attempts: 2, next_try: at(-40_000), error: 'HTTP 500' }, 'failed 2 time(s): HTTP 500 (next try in 40s)'],
    ['held for quiet hours', { ...delivery, status: 'pending' as const, delivered: null, next_try: at(-3 * 3_600_000) }, 'held for 3h (quiet hours)'],
    ['due now', { ...delivery, status: 'pending' as const, delivered: null, next_try: at(0) }, 'sending'],
    ['dropped', { ...delivery, status: 'dropped' as const, error: 'notifier "x" is no longer in the config' }, 'dropped: notifier "x" is no longer in the config'],
  ])('%s', (_, d, text) => {
    expect(deliveryText(d, NOW)).toBe(text);
  });
});

describe('lastPageText', () => {
  it('names the job, the kind, when, and each notifier\'s result', () => {
    const page = { key: 'j:1', job: 'j', name: 'build', kind: 'prompt' as const, reason: 'prompt', queued: at(120_000), deliveries: [delivery, { ...delivery, notifier: 'ntfy', status: 'pending' as const, delivered: null, attempts: 1, next_try: at(-5_000), error: 'no answer within 10s' }] };
    expect(lastPageText(page, NOW)).toBe('build (prompt) 2m ago: hook delivered 1m30s ago; ntfy failed 1 time(s): no answer within 10s (next try in 5s)');
    expect(lastPageText(null, NOW)).toBe('none yet');
  });
});
