/**
 * The watchdog's memory of what the agent said about itself (agent-state.ts):
 * whether it says it waits for a person, and since when (its word that it
 * works is progress: progress.ts). Pure; the watchdog asks when the wait may block.
 */
import type { AgentState } from './agent-state.js';
import { AGENT_WAIT_GRACE_MS } from './watchdog-types.js';

/** What the screen and the process tree show, for a hint that must not act alone. */
export interface StillnessView {
  readonly settleMs: number;
  readonly lastNewScreen: number;
  readonly procBusy: boolean;
  readonly procIdleSince: number;
  readonly lastToolFinish: number;
}

export class AgentWait {
  private wait: { readonly signal: AgentState; readonly since: number } | undefined;

  get signal(): AgentState | undefined {
    return this.wait?.signal;
  }
  get since(): number | undefined {
    return this.wait?.since;
  }

  /** A documented source's word replaces a hint's; a repeated word keeps its first time; anything else ends the wait. */
  say(s: AgentState, now: number): void {
    if (s.state === 'waiting') {
      if (!this.wait || (this.wait.signal.hint && !s.hint)) this.wait = { signal: s, since: now };
      return;
    }
    this.wait = undefined;
  }

  clear(): void {
    this.wait = undefined;
  }

  /**
   * A documented hook blocks after a short grace; a hint only on a screen
   * with nothing new, an idle process tree and no finished tool call for
   * the settle time.
   */
  due(now: number, v: StillnessView): boolean {
    const w = this.wait;
    if (!w) return false;
    if (!w.signal.hint) return now - w.since >= AGENT_WAIT_GRACE_MS;
    const idleFor = v.procBusy ? 0 : now - v.procIdleSince;
    return now - w.since >= v.settleMs && now - v.lastNewScreen >= v.settleMs && idleFor >= v.settleMs && v.lastToolFinish < w.since;
  }

  deadline(v: StillnessView): number | undefined {
    const w = this.wait;
    if (!w) return undefined;
    return w.signal.hint ? Math.max(w.since, v.lastNewScreen, v.procIdleSince) + v.settleMs : w.since + AGENT_WAIT_GRACE_MS;
  }
}
