/**
 * One way to be told of something, after VS Code's src/vs/base/common/event.ts:
 * an Emitter fires events to its listeners, and every subscription is a
 * Disposable, so whoever listens registers it in the store that owns it
 * (lifecycle.ts) and one dispose() ends it.
 */
import { toDisposable, type Disposable } from './lifecycle.js';

/** Subscribing: the listener hears every event fired from now on until the returned Disposable is disposed. */
export type Event<T> = (listener: (e: T) => void) => Disposable;

export interface EmitterOptions<T> {
  /**
   * Events fired while nobody listens are held, up to this many, and handed to
   * the first listener (a file read before its reader subscribed). Past the
   * bound the newer ones are dropped and counted (`dropped`): what was held
   * is the start of the story, which its reader needs most.
   */
  readonly buffer?: number;
  /**
   * A listener threw: the others still hear the event, and the error comes
   * here. Without it, the first error is thrown to whoever fired (for a held
   * event, whoever subscribed), once every listener has had the event.
   */
  readonly onListenerError?: (error: unknown, event: T) => void;
}

interface Subscription<T> {
  readonly fn: (e: T) => void;
}

export class Emitter<T> implements Disposable {
  // Entries rather than the functions: one function subscribed twice is two subscriptions.
  private readonly listeners = new Set<Subscription<T>>();
  private held: T[] | undefined;
  private droppedCount = 0;
  private disposed = false;

  constructor(private readonly opts: EmitterOptions<T> = {}) {
    if (opts.buffer !== undefined) this.held = [];
  }

  readonly event: Event<T> = (fn) => {
    if (this.disposed) return toDisposable(() => undefined);
    const sub = { fn };
    this.listeners.add(sub);
    for (const e of this.held?.splice(0) ?? []) this.deliver([sub], e);
    return toDisposable(() => void this.listeners.delete(sub));
  };

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Events not held because the buffer was full. */
  get dropped(): number {
    return this.droppedCount;
  }

  fire(e: T): void {
    if (this.disposed) return;
    if (this.listeners.size === 0) this.hold(e);
    else this.deliver(this.listeners, e);
  }

  /** Forgets every listener and whatever was held; later events go nowhere. */
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
    this.held = undefined;
  }

  private hold(e: T): void {
    if (!this.held) return;
    if (this.held.length < this.opts.buffer!) this.held.push(e);
    else this.droppedCount++;
  }

  private deliver(to: Iterable<Subscription<T>>, e: T): void {
    let failed: { error: unknown } | undefined;
    for (const sub of to) {
      try {
        sub.fn(e);
      } catch (error) {
        if (this.opts.onListenerError) this.opts.onListenerError(error, e);
        else failed ??= { error };
      }
    }
    if (failed) throw failed.error;
  }
}
