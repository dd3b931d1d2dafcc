/**
 * The rules-and-policy bundle in force, reloaded when its files change. A
 * broken edit is reported and the last good bundle stays (never half of
 * each). One LiveBundle serves every job that uses it: the daemon keeps one
 * for its rules folder, so a job started after an edit gets the edit, and a
 * broken edit is reported once, by the owner, not by every running job.
 */
import { watch, type FSWatcher } from 'chokidar';
import { describeError } from '../util/errors.js';
import { Emitter } from '../util/event.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import { loadBundle, type RuleBundle } from './bundle.js';

export interface ReloadEvents {
  applied?(bundle: RuleBundle): void;
  rejected?(problem: string): void;
}

/** Where a job takes its bundle from: the one in force now, and every later one. */
export interface BundleSource {
  readonly current: RuleBundle;
  subscribe(listener: (bundle: RuleBundle) => void): Disposable;
}

/** A bundle that never changes (drills, tests). */
export function fixedBundle(bundle: RuleBundle): BundleSource {
  return { current: bundle, subscribe: () => toDisposable(() => undefined) };
}

export class LiveBundle implements BundleSource, Disposable {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private generation = 0;
  private readonly reloaded = new Emitter<RuleBundle>();

  private constructor(
    private bundle: RuleBundle,
    readonly rulesPath: string,
    readonly policyPath: string | null,
    private readonly events: ReloadEvents,
    private readonly debounceMs: number,
  ) {}

  /** Loads the bundle (bad files throw InputError with FILE:LINE) and watches its files. */
  static async open(rulesPath: string, policyPath: string | null, events: ReloadEvents = {}, debounceMs = 150): Promise<LiveBundle> {
    const live = new LiveBundle(await loadBundle(rulesPath, policyPath), rulesPath, policyPath, events, debounceMs);
    await live.watch();
    return live;
  }

  get current(): RuleBundle {
    return this.bundle;
  }

  subscribe(listener: (bundle: RuleBundle) => void): Disposable {
    return this.reloaded.event(listener);
  }

  async dispose(): Promise<void> {
    clearTimeout(this.timer);
    this.reloaded.dispose();
    await this.watcher?.close();
  }

  private async watch(): Promise<void> {
    const paths = [this.rulesPath, ...(this.policyPath ? [this.policyPath] : [])];
    this.watcher = watch(paths, { ignoreInitial: true, persistent: false, depth: 0 });
    this.watcher.on('all', () => this.schedule());
    // A folder of thousands of files takes a while to be ready; no job waits for it (jobs get the bundle already loaded).
    await new Promise<void>((resolve) => this.watcher!.once('ready', resolve));
  }

  /** Editors write in bursts (truncate, write, rename): reload once the burst is over. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), this.debounceMs);
    this.timer.unref();
  }

  private async reload(): Promise<void> {
    const gen = ++this.generation;
    try {
      const bundle = await loadBundle(this.rulesPath, this.policyPath);
      if (gen !== this.generation) return;
      this.bundle = bundle;
      this.events.applied?.(bundle);
      this.reloaded.fire(bundle);
    } catch (e) {
      if (gen === this.generation) this.events.rejected?.(describeError(e));
    }
  }
}
