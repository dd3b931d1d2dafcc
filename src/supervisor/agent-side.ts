/**
 * The agent side of a live job: its transcript watcher (JobAgent) from the
 * start or once a wrapped agent is found in the process tree (TreeAgent),
 * and the agent's version held against the rules (rules coverage).
 */
import type { AgentKind } from '../core/agent-events.js';
import type { Clock } from '../core/clock.js';
import type { ResumeFrom } from '../board/types.js';
import type { ProbeProfile } from '../probes/index.js';
import { withAgentVars, type AgentHomeVars } from '../pty/agent-proc.js';
import type { ProcInfo } from '../pty/proctree.js';
import type { RulesCoverage } from '../rules/coverage.js';
import type { DisposableStore } from '../util/lifecycle.js';
import { JobAgent, type AgentHost } from './job-agent.js';
import { jobCoverage } from './job-coverage.js';
import type { JobEvent } from './job-events.js';
import type { JobOptions, JobSpec } from './job-spec.js';
import type { Logger } from './logger.js';
import { TreeAgent, type JobWarning } from './tree-agent.js';

/** The job's side of an agent host, as LiveJob gives it: what the agent may do to the job. */
export type AgentActs = Omit<AgentHost, 'id' | 'dir' | 'name' | 'argv' | 'cwd' | 'startedAt' | 'now' | 'log'>;

export interface AgentSideHost {
  readonly spec: JobSpec;
  readonly opts: JobOptions;
  readonly clock: Clock;
  readonly pid: number;
  readonly startedAt: number;
  readonly store: DisposableStore;
  readonly log: Logger;
  readonly acts: AgentActs;
  /** The job's warnings and coverage go to its sinks (job-sinks.ts). */
  readonly emit: (e: JobEvent) => void;
}

export class AgentSide {
  private current: JobAgent | undefined;
  private tree: TreeAgent | undefined;
  private coverage: RulesCoverage | undefined;

  constructor(private readonly host: AgentSideHost) {}

  /** The job's agent, once it has one. */
  get agent(): JobAgent | undefined {
    return this.current;
  }

  /** What the job's watchers want a person to know though nothing is blocked (no transcript). */
  get warnings(): JobWarning[] {
    return this.tree?.warnings ?? [];
  }

  /** The agent's version against the rules' `checked:` versions; null until read (or for a plain program). */
  get rulesCoverage(): RulesCoverage | null {
    return this.coverage ?? null;
  }

  /** Wrapped agents: found in the process tree, followed under their own HOME, a warning when no transcript comes (tree-agent.ts). */
  watchTree(): void {
    const { opts, store, log } = this.host;
    const tree = new TreeAgent({
      clock: this.host.clock,
      kind: opts.agent?.kind ?? opts.agentKind,
      watch: () => this.current?.watch,
      becomeAgent: async (kind, vars) => {
        const late = await opts.lateAgent?.(kind);
        if (late && !store.isDisposed) this.attach(kind, late.profile, late.resumeFrom ?? null, vars);
        return this.current !== undefined;
      },
      log: (level, msg, fields) => log[level](fields ?? {}, msg),
      warn: (warning) => this.host.emit({ kind: 'warning', warning }),
    });
    store.add(() => tree.dispose());
    this.tree = tree;
  }

  processTree(tree: readonly ProcInfo[]): void {
    this.tree?.tree(tree);
  }

  output(): void {
    this.tree?.output();
  }

  attach(kind: AgentKind, profile: ProbeProfile, resumeFrom: ResumeFrom | null, vars?: AgentHomeVars): void {
    const { spec, opts, clock, log } = this.host;
    const agent = new JobAgent(
      {
        ...this.host.acts,
        id: opts.paths.id,
        dir: opts.paths.dir,
        name: spec.name ?? null,
        argv: [spec.command, ...spec.args],
        cwd: spec.cwd,
        startedAt: this.host.startedAt,
        now: () => clock.now(),
        log: (msg, fields) => log.info(fields ?? {}, msg),
      },
      kind,
      profile,
      // The generic adapter's transcript is the event file, named in the child's environment only.
      { ...(vars ? withAgentVars(spec.env, vars) : spec.env), NIGHTSHIFT_EVENTS: opts.paths.events },
      this.host.pid,
      resumeFrom,
    );
    this.current = agent;
    this.host.store.add(() => agent.watch.close());
    this.host.store.add(() => agent.dispose());
  }

  async checkCoverage(kind: AgentKind): Promise<void> {
    const { spec, opts, store, log } = this.host;
    const c = await jobCoverage(kind, spec, opts.bundle.current.rules.prompts);
    // A job gone by the time its agent answered has no log left to write to.
    if (!c || store.isDisposed) return;
    this.coverage = c;
    if (c.covered === false) log.warn({ rules_coverage: c }, c.note);
    else log.info({ rules_coverage: c }, c.note);
    this.host.emit({ kind: 'coverage', coverage: c });
  }
}
