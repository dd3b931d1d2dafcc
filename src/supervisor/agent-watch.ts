/**
 * A job's second sense: its agent's transcript, followed and normalised by
 * the adapter, drives the watchdog's tool-call gap and the probes; probe
 * responses (nudge, escalate, stop) come back to the job as actions.
 */
import type { AgentEvent, AgentKind } from '../core/agent-events.js';
import type { ToolEvent } from '../core/tool-events.js';
import { adapterFor, TranscriptFollower } from '../adapters/index.js';
import { AgentMonitor, type MonitorResponse } from '../agents/monitor.js';
import type { ProbeProfile } from '../probes/index.js';
import { changedPaths, gitSnapshot, type GitSnapshot } from './git-snapshot.js';

/** Transcripts already taken by a job of this process: two jobs in one cwd never share one. */
const CLAIMED = new Set<string>();

export interface AgentWatchEvents {
  tool(e: ToolEvent): void;
  agentEvent(e: AgentEvent): void;
  gitTurn(turn: string, changed: boolean | null): void;
  response(r: MonitorResponse): void;
  problem(message: string): void;
  /** The agent finished a turn and went quiet: done, if it was given its task up front. */
  turnEnded(finalText: string): void;
}

export interface AgentWatchJob {
  readonly kind: AgentKind;
  readonly cwd: string;
  readonly startedAt: number;
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
  readonly pid: number;
}

/** Quiet after a turn's end before the job counts as done (a nudge or a follow-up turn comes sooner). */
export const TURN_END_QUIET_MS = 3_000;

export class AgentWatch {
  readonly monitor: AgentMonitor;
  private readonly follower: TranscriptFollower;
  private turnStartGit: GitSnapshot = null;
  private turnTimer: NodeJS.Timeout | undefined;
  private lastEventAt = 0;
  /** The last finished turn drew an escalation (a refused claim, a loop): its end is no success. */
  lastTurnEscalated = false;
  readonly artefactsAtStart: GitSnapshot;

  constructor(
    private readonly job: AgentWatchJob,
    profile: ProbeProfile,
    private readonly on: AgentWatchEvents,
  ) {
    this.monitor = new AgentMonitor(profile);
    this.artefactsAtStart = gitSnapshot(job.cwd);
    this.follower = new TranscriptFollower(adapterFor(job.kind), { ...job, claimed: CLAIMED });
    this.follower.onEvent((e) => on.tool(e));
    this.follower.onProblem((m) => on.problem(m));
    this.follower.onAgentEvent((e) => this.onAgentEvent(e));
  }

  get transcript(): string | null {
    return this.follower.path;
  }

  close(): Promise<void> {
    clearTimeout(this.turnTimer);
    return this.follower.close();
  }

  /** Files changed since the job started; null when unknown. */
  artefacts(): string[] | null {
    return changedPaths(this.artefactsAtStart, gitSnapshot(this.job.cwd));
  }

  private onAgentEvent(e: AgentEvent): void {
    this.lastEventAt = Date.now();
    clearTimeout(this.turnTimer);
    let gitChanged: boolean | null = null;
    if (e.kind === 'turn-start') this.turnStartGit = gitSnapshot(this.job.cwd);
    // The git fact is told before the turn's end, so a drill has it when it replays the end.
    if (e.kind === 'turn-end') {
      const changed = changedPaths(this.turnStartGit ?? this.artefactsAtStart, gitSnapshot(this.job.cwd));
      gitChanged = changed === null ? null : changed.length > 0;
      this.on.gitTurn(e.id, gitChanged);
    }
    this.on.agentEvent(e);
    const responses = this.monitor.observe(e, { gitChanged });
    for (const r of responses) this.on.response(r);
    // A nudged or stopped turn goes on (or ends otherwise); an escalated one still ends, but not as a success.
    if (e.kind === 'turn-end') this.lastTurnEscalated = responses.some((r) => r.kind === 'escalate');
    if (e.kind === 'turn-end' && !responses.some((r) => r.kind === 'nudge' || r.kind === 'stop')) this.armTurnEnd(e.finalText);
  }

  private armTurnEnd(finalText: string): void {
    const at = this.lastEventAt;
    this.turnTimer = setTimeout(() => {
      if (this.lastEventAt === at) this.on.turnEnded(finalText);
    }, TURN_END_QUIET_MS);
    this.turnTimer.unref();
  }
}

/**
 * Was the agent given its task on the command line? The last word is a
 * prompt when it is not an option and does not follow one that takes a value.
 */
export function taskUpFront(argv: readonly string[]): boolean {
  if (argv.length < 2) return false;
  const last = argv[argv.length - 1]!;
  const prev = argv[argv.length - 2]!;
  return !last.startsWith('-') && !(prev.startsWith('-') && !prev.includes('=') && argv.length > 2 && /\s/.test(last) === false);
}
