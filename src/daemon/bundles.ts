/**
 * The daemon's rules-and-policy bundles: one LiveBundle for its rules folder
 * and default policy, and one per policy file a job names, each opened once
 * and reloaded live. Every job started takes the bundle in force at that
 * moment and follows later reloads. A broken edit is reported once: every
 * bundle watches the rules folder, so the same problem from several bundles
 * is one report, until a good reload clears it.
 */
import { LiveBundle, type BundleSource } from '../rules/live-bundle.js';
import type { Disposable } from '../util/lifecycle.js';

export interface BundleReports {
  rejected(problem: string): void;
  applied(policy: string | null): void;
}

export class DaemonBundles implements Disposable {
  private readonly open = new Map<string, Promise<LiveBundle>>();
  private lastProblem: string | undefined;

  constructor(
    readonly rulesPath: string,
    readonly defaultPolicy: string | null,
    private readonly reports: BundleReports,
  ) {}

  /** The bundle for a job's own policy file, or the daemon's default; bad files throw InputError (FILE:LINE). */
  for(policy: string | null = this.defaultPolicy): Promise<BundleSource> {
    const key = policy ?? '';
    let live = this.open.get(key);
    if (!live) {
      live = LiveBundle.open(this.rulesPath, policy, {
        rejected: (p) => this.rejected(p),
        applied: () => this.applied(policy),
      });
      this.open.set(key, live);
      // A policy that fails to load is not kept: the next job naming it (fixed by then) tries again.
      live.catch(() => this.open.delete(key));
    }
    return live;
  }

  async dispose(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    for (const live of all) await live.then((l) => l.dispose()).catch(() => undefined);
  }

  private rejected(problem: string): void {
    if (problem === this.lastProblem) return;
    this.lastProblem = problem;
    this.reports.rejected(problem);
  }

  private applied(policy: string | null): void {
    this.lastProblem = undefined;
    this.reports.applied(policy);
  }
}
