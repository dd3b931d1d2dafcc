/** Resolves with the value once `probe` returns something other than undefined/false; rejects after `ms`. */
export async function until<T>(probe: () => T | undefined | false, ms: number, what: string, every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
