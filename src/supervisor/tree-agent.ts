/**
 * A job's agent as its process tree shows it (wrapped agents):
 * `launch.sh`, `bash -c "claude …"` or `env HOME=… claude` run an agent the
 * command line hides or whose HOME differs from the job's. The spotter finds
 * the agent process in the sampler's trees; a plain program that turns out
 * to run one becomes an agent job from then on, and every agent job looks
 * for its transcript under the agent's own HOME and config dirs. An agent
 * job with no transcript after NO_TRANSCRIPT_MS gets one warning.
 */
import type { AgentKind } from '../core/agent-events.js';
import type { Clock } from '../core/clock.js';
import type { AgentHomeVars } from '../pty/agent-proc.js';
import type { ProcInfo } from '../pty/proctree.js';
import { AgentSpotter, type SpottedAgent } from './agent-spotter.js';
import type { AgentWatch } from './agent-watch.js';
import { TranscriptWait } from './transcript-wait.js';

/** Something about a running job a person should know, though it blocks nothing. */
export interface JobWarning {
  /** unanswered-soon: the ceiling on waiting is near (ceiling-watch.ts). */
  readonly code: 'no-transcript' | 'unanswered-soon';
  readonly message: string;
  /** ISO time it was given. */
  readonly time: string;
}

export interface TreeAgentHost {
  readonly clock: Clock;
  /** The agent the command or `--agent` named; undefined or generic: a plain program so far. */
  readonly kind: AgentKind | undefined;
  /** The job's transcript watch, once it has one. */
  watch(): AgentWatch | undefined;
  /** Makes the job an agent job (transcript, probes); false when it cannot be one (no probe profiles, closed). */
  becomeAgent(kind: AgentKind, vars: AgentHomeVars | undefined): Promise<boolean>;
  log(level: 'info' | 'warn', msg: string, fields?: object): void;
  warn(w: JobWarning): void;
}

export class TreeAgent {
  private readonly spotter: AgentSpotter;
  private readonly wait: TranscriptWait;
  private warning: JobWarning | undefined;
  private closed = false;
  private kind: AgentKind | undefined;

  constructor(private readonly host: TreeAgentHost, waitMs?: number) {
    this.kind = host.kind;
    const named = host.kind !== undefined && host.kind !== 'generic' ? host.kind : 'any';
    this.spotter = new AgentSpotter(named, (a) => void this.onSpotted(a).catch((e: unknown) => host.log('warn', 'agent in the process tree', { problem: String(e) })));
    this.wait = new TranscriptWait(host.clock, { found: () => host.watch()?.transcript != null, warn: (ms) => this.onMissing(ms) }, waitMs);
    if (this.isAgentJob()) this.wait.agent();
  }

  /** A tree the sampler read. */
  tree(tree: readonly ProcInfo[]): void {
    this.spotter.observe(tree);
  }

  /** The job printed something. */
  output(): void {
    if (this.isAgentJob()) this.wait.agent();
    this.wait.output();
  }

  get warnings(): JobWarning[] {
    return this.warning ? [this.warning] : [];
  }

  dispose(): void {
    this.closed = true;
    this.spotter.stop();
    this.wait.dispose();
  }

  /** Follows an agent's transcript; `--agent generic` follows its event file, which is no agent's to be missing. */
  private isAgentJob(): boolean {
    return this.host.watch() !== undefined && this.kind !== 'generic';
  }

  private async onSpotted(a: SpottedAgent): Promise<void> {
    let watch = this.host.watch();
    // Asked for (`--agent generic`): its probes read its event file, whatever runs under it.
    if (watch && this.kind === 'generic') return;
    if (watch) {
      const before = watch.lookedIn;
      if (a.vars) watch.useAgentVars(a.vars);
      if (watch.lookedIn !== before) this.host.log('info', `the ${a.kind} process (pid ${a.pid}) has its own HOME or config dir: its transcript is looked for under ${watch.lookedIn}`);
      return;
    }
    if (this.closed || !(await this.host.becomeAgent(a.kind, a.vars))) return;
    watch = this.host.watch();
    this.kind = a.kind;
    this.wait.agent();
    // Hooks go in on the command line or environment at the spawn; this agent was already running.
    this.host.log(
      'warn',
      `${a.kind} found in the process tree (pid ${a.pid}): an agent job from now on, its transcript looked for under ${watch?.lookedIn ?? '?'}; ` +
        'its hooks (agent signals) cannot be wired after the start, so it runs without them',
      { agent: a.kind, pid: a.pid },
    );
  }

  private onMissing(waitedMs: number): void {
    const watch = this.host.watch();
    if (this.closed || !watch) return;
    const where = watch.lookedIn ? ` under ${watch.lookedIn}` : '';
    const message =
      `no ${this.kind ?? 'agent'} transcript${where} ${Math.round(waitedMs / 1000)} s after the job's first output: ` +
      'no probes, no done-at-turn-end; is the agent writing under another HOME or config dir?';
    this.warning = { code: 'no-transcript', message, time: new Date(this.host.clock.now()).toISOString() };
    this.host.log('warn', message, { warning: 'no-transcript' });
    this.host.warn(this.warning);
  }
}
