/**
 * A job's second sense: its agent's transcript, followed and normalised by
 * the adapter, drives the watchdog's tool-call gap and the probes; probe
 * responses (nudge, escalate, stop) come back to the job as actions.
 */
import type { AgentEvent, AgentKind } from '../core/agent-events.js';
import type { ToolEvent } from '../core/tool-events.js';
import { adapterFor, TranscriptFollower, type AgentJob, type ReadPosition, type ResumePoint } from '../adapters/index.js';
import { withAgentVars, type AgentHomeVars } from '../pty/agent-proc.js';
import { AgentMonitor, type MonitorResponse } from '../agents/monitor.js';
import type { ProbeProfile, Spent } from '../probes/index.js';
import { changedPaths, gitSnapshot, type GitSnapshot } from './git-snapshot.js';
import { projectCheckIn } from './project-files.js';

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
  /** A resumed job: the part of the transcript the old job already judged. */
  readonly resumeFrom?: ResumePoint;
  /** An adopted job: what it spent up to `resumeFrom` (the budgets go on from there). */
  readonly spent?: Spent;
}

/** Quiet after a turn's end before the job counts as done (a nudge or a follow-up turn comes sooner). */
export const TURN_END_QUIET_MS = 3_000;

export class AgentWatch {
  readonly monitor: AgentMonitor;
  private readonly follower: TranscriptFollower;
  /** What the follower locates by; its env changes once the agent process's own is read. */
  private readonly located: Omit<AgentJob, 'env'> & { env: AgentJob['env'] };
  private turnStartGit: Promise<GitSnapshot> | undefined;
  /**
   * Agent events are handled one after another, each after the one before:
   * a turn's end waits for its `git status`, and what came after it waits
   * too, so the monitor (and the recording) see them in the agent's order.
   */
  private queue: Promise<void> = Promise.resolve();
  private turnTimer: NodeJS.Timeout | undefined;
  private lastEventAt = 0;
  private closed = false;
  /** The last finished turn drew an escalation (a refused claim, a loop): its end is no success. */
  lastTurnEscalated = false;
  /** The last finished turn's claim of done was accepted unchecked, after the reminders: its end is no clean success. */
  lastTurnUnverified = false;
  readonly artefactsAtStart: Promise<GitSnapshot>;

  constructor(
    private readonly job: AgentWatchJob,
    profile: ProbeProfile,
    private readonly on: AgentWatchEvents,
  ) {
    this.monitor = new AgentMonitor(profile, job.spent);
    this.artefactsAtStart = gitSnapshot(job.cwd);
    this.located = { ...job, claimed: CLAIMED };
    this.follower = new TranscriptFollower(adapterFor(job.kind), this.located, job.resumeFrom ? { resumeFrom: job.resumeFrom } : {});
    this.follower.onEvent((e) => on.tool(e));
    this.follower.onProblem((m) => on.problem(m));
    this.follower.onAgentEvent((e) => this.enqueue(e));
  }

  get transcript(): string | null {
    return this.follower.path;
  }

  /** The agent process's own HOME and config dirs (a wrapper may set them): the follower looks there from its next look on. */
  useAgentVars(vars: AgentHomeVars): void {
    this.located.env = withAgentVars(this.located.env, vars);
  }

  /** The folder the transcript is looked for in, for a person to check. */
  get lookedIn(): string | null {
    return adapterFor(this.job.kind).root?.(this.located) ?? null;
  }

  /** How far the transcript was read (the resume card's resume point). */
  get position(): ReadPosition | null {
    return this.follower.position;
  }

  /** Stops following; the events already read are still handled (their snapshots awaited) before it resolves. */
  async close(): Promise<void> {
    await this.follower.close();
    await this.settled();
    this.closed = true;
    clearTimeout(this.turnTimer);
  }

  /** Resolves once every event received so far has been handled. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** `read()` taken at an instant when every event read so far (also those that came while waiting) has been handled. */
  async whenHandled<T>(read: () => T): Promise<T> {
    let q: Promise<void>;
    do {
      q = this.queue;
      await q;
    } while (q !== this.queue);
    return read();
  }

  spent(): Spent {
    const s = this.monitor.stats;
    return { steps: s.steps, tokens: s.tokens };
  }

  /** Files changed since the job started; null when unknown. */
  async artefacts(): Promise<string[] | null> {
    return changedPaths(await this.artefactsAtStart, await gitSnapshot(this.job.cwd));
  }

  private enqueue(e: AgentEvent): void {
    // Asked for now, not when the queue reaches the event: the tree as it was when the turn began or ended.
    const git = e.kind === 'turn-start' || e.kind === 'turn-end' ? gitSnapshot(this.job.cwd) : undefined;
    this.queue = this.queue
      .then(() => this.handle(e, git))
      .catch((err: unknown) => this.on.problem(`agent event ${e.id}: ${err instanceof Error ? err.message : String(err)}`));
  }

  private async handle(e: AgentEvent, git: Promise<GitSnapshot> | undefined): Promise<void> {
    let gitChanged: boolean | null = null;
    let projectCheck: string | null = null;
    if (e.kind === 'turn-start') this.turnStartGit = git;
    // The git fact is told before the turn's end, so a drill has it when it replays the end.
    if (e.kind === 'turn-end' && git) {
      // Read at each turn's end (the agent may have added a test script), once: the reminder names it.
      const check = projectCheckIn(this.job.cwd);
      const changed = changedPaths(await (this.turnStartGit ?? this.artefactsAtStart), await git);
      gitChanged = changed === null ? null : changed.length > 0;
      projectCheck = await check;
      this.on.gitTurn(e.id, gitChanged);
    }
    this.observe(e, gitChanged, projectCheck);
  }

  private observe(e: AgentEvent, gitChanged: boolean | null, projectCheck: string | null): void {
    this.lastEventAt = Date.now();
    clearTimeout(this.turnTimer);
    this.on.agentEvent(e);
    const responses = this.monitor.observe(e, { gitChanged, projectCheck });
    for (const r of responses) this.on.response(r);
    // A nudged or stopped turn goes on (or ends otherwise); an escalated one still ends, but not as a success.
    if (e.kind === 'turn-end') this.lastTurnEscalated = responses.some((r) => r.kind === 'escalate');
    if (e.kind === 'turn-end') this.lastTurnUnverified = responses.some((r) => r.unverified === true);
    if (e.kind === 'turn-end' && !responses.some((r) => r.kind === 'nudge' || r.kind === 'stop')) this.armTurnEnd(e.finalText);
  }

  private armTurnEnd(finalText: string): void {
    if (this.closed) return;
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
