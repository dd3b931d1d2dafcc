import { describe, expect, it } from 'vitest';
import { DisposableStore, DisposeError } from './lifecycle.js';

describe('DisposableStore', () => {
  it('releases newest first, each once', async () => {
    const store = new DisposableStore();
    const order: string[] = [];
    store.add(() => void order.push('child'));
    store.add(async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('cast');
    });
    store.add(() => void order.push('watcher'));
    await Promise.all([store.dispose(), store.dispose()]);
    await store.dispose();
    expect(order).toEqual(['watcher', 'cast', 'child']);
  });

  it('releases everything even when a release throws, then reports every failure', async () => {
    const store = new DisposableStore();
    const released: string[] = [];
    store.add(() => void released.push('a'));
    store.add(() => {
      throw new Error('sampler stuck');
    });
    store.add(async () => {
      throw new Error('watcher close failed');
    });
    store.add(() => void released.push('d'));
    const err = await store.dispose().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DisposeError);
    expect((err as DisposeError).errors.map((e) => (e as Error).message)).toEqual(['watcher close failed', 'sampler stuck']);
    expect(released).toEqual(['d', 'a']);
  });

  it('releases at once what is registered after it was disposed (a watcher ready after its job died)', async () => {
    const store = new DisposableStore();
    await store.dispose();
    let late = false;
    store.add(() => void (late = true));
    await new Promise((r) => setImmediate(r));
    expect(late).toBe(true);
    expect(store.isDisposed).toBe(true);
  });
});
