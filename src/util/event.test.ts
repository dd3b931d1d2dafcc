import { describe, expect, it } from 'vitest';
import { Emitter } from './event.js';
import { DisposableStore } from './lifecycle.js';

describe('Emitter', () => {
  it('tells each listener until its subscription is disposed', () => {
    const e = new Emitter<number>();
    const a: number[] = [];
    const b: number[] = [];
    const subA = e.event((n) => a.push(n));
    e.event((n) => b.push(n));
    e.fire(1);
    subA.dispose();
    e.fire(2);
    expect(a).toEqual([1]);
    expect(b).toEqual([1, 2]);
  });

  it('one function subscribed twice hears each event twice, and one dispose ends one of them', () => {
    const e = new Emitter<string>();
    const seen: string[] = [];
    const fn = (s: string) => void seen.push(s);
    const first = e.event(fn);
    e.event(fn);
    e.fire('x');
    first.dispose();
    e.fire('y');
    expect(seen).toEqual(['x', 'x', 'y']);
  });

  it('a subscription registered in a store ends when the store is disposed', async () => {
    const e = new Emitter<number>();
    const store = new DisposableStore();
    const seen: number[] = [];
    store.register(e.event((n) => seen.push(n)));
    e.fire(1);
    await store.dispose();
    e.fire(2);
    expect(seen).toEqual([1]);
    expect(e.hasListeners).toBe(false);
  });

  it('without a buffer, events fired while nobody listens are gone', () => {
    const e = new Emitter<number>();
    e.fire(1);
    const seen: number[] = [];
    e.event((n) => seen.push(n));
    e.fire(2);
    expect(seen).toEqual([2]);
  });

  it('holds events until the first listener, up to its bound, and counts what it dropped', () => {
    const e = new Emitter<number>({ buffer: 3 });
    for (const n of [1, 2, 3, 4, 5]) e.fire(n);
    expect(e.dropped).toBe(2);
    const first: number[] = [];
    const second: number[] = [];
    e.event((n) => first.push(n));
    e.event((n) => second.push(n));
    e.fire(6);
    expect(first).toEqual([1, 2, 3, 6]);
    expect(second).toEqual([6]);
  });

  it('holds again once every listener has gone', () => {
    const e = new Emitter<number>({ buffer: 10 });
    e.event(() => undefined).dispose();
    e.fire(1);
    const seen: number[] = [];
    e.event((n) => seen.push(n));
    expect(seen).toEqual([1]);
  });

  it('a listener that throws does not stop the others; the error hook hears it with the event', () => {
    const errors: string[] = [];
    const e = new Emitter<number>({ onListenerError: (err, n) => errors.push(`${n}: ${(err as Error).message}`) });
    const seen: number[] = [];
    e.event(() => {
      throw new Error('bad listener');
    });
    e.event((n) => seen.push(n));
    e.fire(1);
    e.fire(2);
    expect(seen).toEqual([1, 2]);
    expect(errors).toEqual(['1: bad listener', '2: bad listener']);
  });

  it('a held event a first listener throws on goes to the error hook, and the rest still reach it', () => {
    const errors: number[] = [];
    const e = new Emitter<number>({ buffer: 5, onListenerError: (_err, n) => errors.push(n) });
    e.fire(1);
    e.fire(2);
    const seen: number[] = [];
    e.event((n) => {
      seen.push(n);
      if (n === 1) throw new Error('no');
    });
    expect(seen).toEqual([1, 2]);
    expect(errors).toEqual([1]);
  });

  it('with no error hook, every listener hears the event and then the first error is thrown to whoever fired', () => {
    const e = new Emitter<number>();
    const seen: string[] = [];
    e.event(() => {
      throw new Error('first');
    });
    e.event(() => {
      throw new Error('second');
    });
    e.event((n) => seen.push(`last ${n}`));
    expect(() => e.fire(7)).toThrow('first');
    expect(seen).toEqual(['last 7']);
  });

  it('once disposed it forgets listeners and held events, and later subscriptions hear nothing', () => {
    const e = new Emitter<number>({ buffer: 5 });
    e.fire(1);
    const before: number[] = [];
    e.event((n) => before.push(n));
    e.dispose();
    e.fire(2);
    const after: number[] = [];
    e.event((n) => after.push(n)).dispose();
    e.fire(3);
    expect(before).toEqual([1]);
    expect(after).toEqual([]);
    expect(e.hasListeners).toBe(false);
  });
});
