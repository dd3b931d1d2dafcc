/**
 * `p`'s value, or 'timeout' once `ms` have passed without it. The timer goes
 * either way, so a wait that ended early never holds the process open for
 * the rest of its `ms` (a stopping daemon would linger that long).
 */
export async function within<T>(ms: number, p: Promise<T>): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
