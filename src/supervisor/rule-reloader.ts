/**
 * Reloads rules and policy when their files change. A broken edit is
 * reported and the last good bundle stays in force; nothing is half-applied.
 */
import { watch, type FSWatcher } from 'chokidar';
import { loadBundle, type RuleBundle } from '../rules/bundle.js';
import { describeError } from '../util/errors.js';

export interface ReloadEvents {
  applied(bundle: RuleBundle): void;
  rejected(problem: string): void;
}

export class RuleReloader {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private generation = 0;

  constructor(
    private readonly rulesPath: string,
    private readonly policyPath: string | null,
    private readonly events: ReloadEvents,
    private readonly debounceMs = 150,
  ) {}

  async start(): Promise<void> {
    const paths = [this.rulesPath, ...(this.policyPath ? [this.policyPath] : [])];
    this.watcher = watch(paths, { ignoreInitial: true, persistent: false, depth: 0 });
    this.watcher.on('all', () => this.schedule());
    await new Promise<void>((resolve) => this.watcher!.once('ready', resolve));
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
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
      if (gen === this.generation) this.events.applied(bundle);
    } catch (e) {
      if (gen === this.generation) this.events.rejected(describeError(e));
    }
  }
}
