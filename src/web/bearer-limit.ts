/**
 * Bearer-token failures, counted per client address: past MAX in a window
 * that address gets 429s, and no scrypt runs for it, so guessing costs the
 * guesser time and the daemon nothing. A token verified in the last minute
 * (the store's cache, no scrypt) still passes from a limited address: a
 * script polling with a good token is not stopped by a guesser beside it on
 * the same machine.
 */

/** Failures allowed per address per window: generous for a mistyped token, nothing for guessing. */
export const BEARER_FAILURES = { max: 20, windowMs: 60_000 };
const MAX_ADDRESSES = 4_096;

export class BearerLimit {
  private readonly byAddress = new Map<string, { since: number; failures: number }>();

  constructor(private readonly limits = BEARER_FAILURES) {}

  /** Seconds until the address may try unknown tokens again, or 0 when it may now. */
  retryAfter(address: string, now: number): number {
    const e = this.byAddress.get(address);
    if (!e || now - e.since >= this.limits.windowMs || e.failures < this.limits.max) return 0;
    return Math.max(1, Math.ceil((e.since + this.limits.windowMs - now) / 1000));
  }

  failed(address: string, now: number): void {
    const e = this.byAddress.get(address);
    if (e && now - e.since < this.limits.windowMs) {
      e.failures++;
      return;
    }
    this.byAddress.delete(address);
    if (this.byAddress.size >= MAX_ADDRESSES) this.evict(now);
    this.byAddress.set(address, { since: now, failures: 1 });
  }

  /** Windows that ended go first; when none has, the oldest. */
  private evict(now: number): void {
    for (const [a, e] of this.byAddress) if (now - e.since >= this.limits.windowMs) this.byAddress.delete(a);
    if (this.byAddress.size >= MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
  }
}
