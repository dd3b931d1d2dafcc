/**
 * One ownership primitive, after xterm.js src/common/Lifecycle.ts: whatever
 * a component acquires is registered in its DisposableStore the moment it is
 * acquired, and one dispose() releases all of it, newest first. A start that
 * fails half-way disposes the store and so releases exactly what it took; a
 * release that throws does not stop the others.
 */
export interface Disposable {
  dispose(): void | Promise<void>;
}

export const toDisposable = (fn: () => void | Promise<void>): Disposable => ({ dispose: fn });

export class DisposeError extends AggregateError {
  constructor(errors: unknown[]) {
    const first = errors[0] instanceof Error ? errors[0].message : String(errors[0]);
    super(errors, `${errors.length} release(s) failed during teardown; first: ${first}`);
    this.name = 'DisposeError';
  }
}

export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposing: Promise<void> | undefined;

  get isDisposed(): boolean {
    return this.disposing !== undefined;
  }

  /**
   * Takes ownership of `d`. Registering into a store that is already
   * disposed (a resource that arrives after its owner died: a watcher ready
   * after the job exited) releases it at once rather than leaking it.
   */
  register<T extends Disposable>(d: T): T {
    if (this.disposing) void Promise.resolve().then(() => d.dispose()).catch(() => undefined);
    else this.items.push(d);
    return d;
  }

  /** Runs `fn` at teardown, in registration order's reverse like any other item. */
  add(fn: () => void | Promise<void>): void {
    this.register(toDisposable(fn));
  }

  /** Releases everything, newest first; every release runs even when some throw (then rejects with all their errors). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      const errors: unknown[] = [];
      for (const d of this.items.splice(0).reverse()) {
        try {
          await d.dispose();
        } catch (e) {
          errors.push(e);
        }
      }
      if (errors.length) throw new DisposeError(errors);
    })();
    return this.disposing;
  }
}
