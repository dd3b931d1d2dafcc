/** A verified token skips scrypt for this long; the row is still read each time, so a revoke is seen at once. */
export const TOKEN_CACHE_MS = 60_000;
const TOKEN_CACHE_SIZE = 256;

/**
 * Tokens whose secret scrypt has accepted, by the SHA-256 of the whole
 * token: a bearer client polling the API costs one scrypt a minute, not
 * one a request. Bounded, oldest first out, so unknown tokens cannot grow it.
 */
export class VerifiedTokens {
  private readonly byHash = new Map<string, { name: string; tokenId: string; until: number }>();

  constructor(private readonly size = TOKEN_CACHE_SIZE) {}

  has(hash: string, tokenId: string, now: number): boolean {
    const e = this.byHash.get(hash);
    if (e && e.tokenId === tokenId && now < e.until) return true;
    this.byHash.delete(hash);
    return false;
  }

  add(hash: string, name: string, tokenId: string, now: number): void {
    this.byHash.delete(hash);
    if (this.byHash.size >= this.size) this.byHash.delete(this.byHash.keys().next().value!);
    this.byHash.set(hash, { name, tokenId, until: now + TOKEN_CACHE_MS });
  }

  forget(name: string): void {
    for (const [hash, e] of this.byHash) if (e.name === name) this.byHash.delete(hash);
  }
}
