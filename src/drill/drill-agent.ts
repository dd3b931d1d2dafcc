/**
 * The agent side of a drill: `agent:{…}` markers (the job's normalised
 * transcript events) and `git:<turn>:<changed>` markers go through the same
 * AgentMonitor a live job uses, so nudges, escalations and stops show up as
 * drill actions at the moment they happened.
 */
import type { AgentEvent } from '../core/agent-events.js';
import type { Clock } from '../core/clock.js';
import type { Action } from '../core/watchdog-types.js';
import { AgentMonitor } from '../agents/monitor.js';
import type { ProbeProfile } from '../probes/index.js';

export class DrillAgent {
  readonly actions: Action[] = [];
  private readonly monitor: AgentMonitor;
  private readonly gitByTurn = new Map<string, boolean | null>();

  constructor(
    profile: ProbeProfile,
    private readonly clock: Clock,
    /** Where an escalation goes (the watchdog's probe block); without one it is an action of its own. */
    private readonly escalate?: (probe: string, text: string) => void,
  ) {
    this.monitor = new AgentMonitor(profile);
  }

  /** True when the marker was the agent's (and was used). */
  marker(label: string): boolean {
    if (label.startsWith('git:')) {
      const m = /^git:(.+):(true|false|null)$/.exec(label);
      if (m) this.gitByTurn.set(m[1]!, m[2] === 'null' ? null : m[2] === 'true');
      return true;
    }
    if (!label.startsWith('agent:')) return false;
    let e: AgentEvent;
    try {
      e = JSON.parse(label.slice(6)) as AgentEvent;
    } catch {
      return true;
    }
    const gitChanged = e.kind === 'turn-end' ? (this.gitByTurn.get(e.id) ?? null) : null;
    for (const r of this.monitor.observe(e, { gitChanged })) {
      if (r.kind === 'record') continue;
      if (r.kind === 'escalate' && this.escalate) {
        this.escalate(r.verdict.probe, r.why);
        continue;
      }
      const t = this.clock.now();
      this.actions.push({
        t,
        kind: r.kind,
        rule: null,
        class: null,
        prompt: null,
        text: `${r.verdict.probe}: ${r.why}`,
        reason: `probe:${r.verdict.probe}`,
        since: t,
        screen: [],
        layer: 'probe',
        why: r.why,
        ...(r.kind === 'nudge' ? { keys: ['continue', 'enter'] } : {}),
      });
    }
    return true;
  }
}
