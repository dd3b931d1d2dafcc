/**
 * A board job running inside the daemon: a LiveJob whose events also feed
 * the board and the job's pages (board-sink.ts, page-sink.ts), and whose
 * budgets (job-budgets.ts: wall clock, no progress, tokens) stop it when they trip. Its
 * commands see it as a JobHandle (src/api/job-handle.ts): the LiveJob's view and acts, given whole.
 */
import type { WatchdogConfig } from '../core/watchdog-types.js';
import type { Board } from '../board/board.js';
import type { JobRecord, ResumeFrom } from '../board/types.js';
import { readLedger, type AgentLedgerRecord } from '../supervisor/agent-ledger.js';
import type { Pager } from '../notify/pager.js';
import type { BundleSource } from '../rules/live-bundle.js';
import { redactorFor, type Redactor } from '../notify/secrets.js';
import { createJobDir } from '../supervisor/job-dir.js';
import { detectAgent } from '../adapters/index.js';
import type { RulesCoverage } from '../rules/coverage.js';
import { agentOption } from '../supervisor/agent-option.js';
import { LiveJob } from '../supervisor/live-job.js';
import type { PtyExit } from '../pty/host.js';
import type { PersonActs } from '../supervisor/person-acts.js';
import { BoardSink } from './board-sink.js';
import { NoteSink } from './note-sink.js';
import type { JobHandle, JobView } from '../api/job-handle.js';
import { PageSink } from './page-sink.js';
import { toReason } from '../board/reasons.js';
import { actionOf, lastEpisode } from '../supervisor/evidence.js';
import type { ResumePoint } from '../core/watchdog.js';
import type { JobTerminal } from '../supervisor/job-terminal.js';
import { JobBudgets } from './job-budgets.js';

export interface DaemonJobDeps {
  readonly board: Board;
  readonly pager: Pager;
  readonly stateDir: string;
  readonly bundle: BundleSource;
  /** Where the probe profiles (probes.yaml) live. */
  readonly rulesPath: string;
  readonly config: WatchdogConfig;
  readonly now: () => number;
  readonly onLog: (msg: string, fields?: object) => void;
  /** The recording cap (bytes), when the daemon was given one. */
  readonly recordingCap?: number;
  /** A job file could not be written (a full disk); the daemon pages and makes room. */
  readonly onDiskProblem: (job: DaemonJob, file: string, e: Error) => void;
  /** The agent's version held against the rules (a newer one is said on the daemon's stderr). */
  readonly onCoverage?: (rec: JobRecord, c: RulesCoverage) => void;
}

/** Where the job's terminal comes from, and for an adopted job the board's word on where it was. */
export interface JobLaunch {
  readonly terminal: JobTerminal;
  readonly adopt?: boolean;
}

export class DaemonJob implements JobHandle {
  private budgets: JobBudgets | undefined;
  private liveJob: LiveJob | undefined;
  /** The job's own `--env` values and pattern secrets out of its pages, log, evidence and summary. */
  private readonly redact: Redactor;
  private readonly row: BoardSink;
  private readonly pages: PageSink;
  private readonly notes: NoteSink;

  private constructor(
    private readonly record: JobRecord,
    private readonly deps: DaemonJobDeps,
  ) {
    this.redact = redactorFor(record.env);
    this.row = new BoardSink(record.id, deps);
    this.notes = new NoteSink(record.id, { ...deps, redact: this.redact });
    this.pages = new PageSink(record, {
      ...deps,
      redact: this.redact,
      view: () => this.liveJob && { rows: this.liveJob.screen.snapshot().rows, state: this.liveJob.state },
    });
  }

  /** The job's sinks exist before its PTY does: a job that ends at once still reaches the board. */
  static async start(rec: JobRecord, deps: DaemonJobDeps, how: JobLaunch): Promise<DaemonJob> {
    const job = new DaemonJob(rec, deps);
    const resume = how.adopt ? resumePoint(rec, deps.board, deps.now()) : undefined;
    if (resume) job.pages.resume(resume.point.state === 'blocked');
    const paths = createJobDir(deps.stateDir, rec.id);
    const { id: _id, ...files } = paths;
    deps.board.update(rec.id, { paths: files });
    const [command, ...args] = rec.command as [string, ...string[]];
    // Adopted: the agent's read position and spending as the previous daemon left them (agent-ledger.ts).
    const adopted = resume ? { ledger: await readLedger(paths.dir) } : undefined;
    const agent = withBudget(await agentOption(rec.command, deps.rulesPath, rec.env.NIGHTSHIFT_AGENT, rec.env.NIGHTSHIFT_PROFILE, rec.env.NIGHTSHIFT_WRAP_UP), rec, adopted);
    job.liveJob = await LiveJob.start(
      { command, args, cwd: rec.cwd, env: { ...(process.env as Record<string, string>), ...rec.env }, cols: 120, rows: 40, name: rec.name },
      {
        paths,
        bundle: deps.bundle,
        ...(agent ? { agent } : {}),
        lateAgent: async (kind) => withBudget(await agentOption([kind], deps.rulesPath, kind, rec.env.NIGHTSHIFT_PROFILE, rec.env.NIGHTSHIFT_WRAP_UP), rec, adopted),
        agentKind: detectAgent(rec.command, rec.env.NIGHTSHIFT_AGENT),
        ...(deps.onCoverage ? { onCoverage: (c: RulesCoverage) => deps.onCoverage?.(rec, c) } : {}),
        onProblem: (problem) => deps.onLog(problem, { job: rec.id }),
        config: deps.config,
        answerQueries: true,
        redact: job.redact,
        ...(deps.recordingCap ? { recordingCap: deps.recordingCap } : {}),
        onDiskProblem: (file, e) => deps.onDiskProblem(job, file, e),
        ...(rec.on_unanswered ? { onUnanswered: { afterMs: rec.on_unanswered.after_ms, do: rec.on_unanswered.do } } : {}),
        maxBlockedMs: rec.budgets.blocked_ms,
        // The board first: a page's reader finds the row already moved.
        sinks: [job.row, job.notes, job.pages],
        terminal: how.terminal,
        ...(resume ? { resume } : {}),
      },
    );
    if (rec.resume_from?.by && !resume) job.liveJob.acts.resumed(rec.resume_from.by, rec.resume_from.job);
    const live = job.liveJob;
    job.budgets = new JobBudgets(rec, live, deps, {
      progress: (at) => job.row.progress(at),
      trip: (cause, detail) => {
        job.pages.pageStop(cause, `${cause}: ${detail}`);
        void live.stop(cause);
      },
      guarded: (what, fn) => job.guarded(what, fn),
    });
    void live.finished.finally(() => job.budgets?.dispose());
    return job;
  }

  private get live(): LiveJob {
    if (!this.liveJob) throw new Error(`job ${this.record.id} has not started`);
    return this.liveJob;
  }

  get id(): string {
    return this.record.id;
  }

  get finished(): Promise<PtyExit> {
    return this.live.finished;
  }

  /** The child's exit, once reported (the daemon's log line). */
  get exit(): PtyExit | undefined {
    return this.live.exit;
  }

  get view(): JobView {
    return this.live;
  }

  get acts(): PersonActs {
    return this.live.acts;
  }

  /**
   * The key (`<job id>:<episode>`) of the page for the block the job is in
   * now; null when it is running, or blocked on something nobody was paged
   * for (an automatic answer still being checked).
   */
  get blockedEpisode(): string | null {
    return this.pages.blockedEpisode;
  }

  /** The daemon's own stops (shutdown, a cancel that came while starting): `cause` is the done reason. */
  stop(cause: string): Promise<PtyExit> {
    return this.live.stop(cause);
  }

  kill(): void {
    this.live.kill('SIGKILL');
  }

  /** Lets go without stopping it: it runs on in the PTY host for the next daemon (shutdown --detach). */
  detach(): Promise<void> {
    this.budgets?.dispose();
    return this.live.detach();
  }

  suspendRecording(why: string): void {
    this.live.suspendRecording(why);
  }

  pageDiskFull(file: string, e: Error): void {
    this.pages.pageDiskFull(file, e);
  }

  /** A board write that fails (SQLITE_FULL on a full disk) must not become an uncaught exception in a PTY or timer callback. */
  private guarded<T>(what: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (e) {
      this.deps.onLog(`${what} failed`, { job: this.id, err: String(e) });
      return undefined;
    }
  }
}

/** The board's state of a job the previous daemon ran, for the watchdog that takes it over. */
function resumePoint(rec: JobRecord, board: Board, now: number): { point: ResumePoint; startedAt: number } {
  if (rec.state !== 'running' && rec.state !== 'blocked') throw new Error(`job ${rec.name} is ${rec.state}; only a running or blocked job can be adopted`);
  const last = board.transitions(rec.id).at(-1);
  const since = last ? Date.parse(last.time) : now;
  const episode = rec.state === 'blocked' && rec.paths ? lastEpisode(rec.paths.evidence) : undefined;
  const action = episode?.open && episode.prompt ? actionOf(episode.prompt) : undefined;
  const lastProgress = rec.last_activity ? Date.parse(rec.last_activity) : undefined;
  const point = { state: rec.state, reason: toReason(rec.reason), since, ...(lastProgress !== undefined ? { lastProgress } : {}), ...(action ? { action } : {}) };
  return { point, startedAt: rec.started ? Date.parse(rec.started) : since };
}

/**
 * The job's step and token budgets are the profile's max_steps and
 * max_tokens unless the board gives lower ones (a resumed job: what was left
 * plus what was granted), and a resumed job follows the old transcript past
 * what the old job judged. An adopted one goes on from its ledger: past the
 * lines the previous daemon judged, with the steps and tokens it counted;
 * without a ledger, past what the file holds when it is found.
 */
function withBudget(agent: Awaited<ReturnType<typeof agentOption>>, rec: JobRecord, adopted: { ledger: AgentLedgerRecord | null } | undefined) {
  if (!agent) return undefined;
  const { steps, tokens } = rec.budgets;
  const l = adopted?.ledger;
  const resumeFrom: ResumeFrom | null = adopted
    ? { job: rec.id, transcript: l?.transcript ?? '', lines: l?.lines ?? 0, last_event: l?.last_event ?? null, goal: rec.resume_from?.goal ?? '', adopted: true, ...(l && { spent: { steps: l.steps, tokens: l.tokens } }) }
    : rec.resume_from;
  const profile = { ...agent.profile, maxSteps: steps ?? agent.profile.maxSteps, maxTokens: Math.min(tokens ?? Infinity, agent.profile.maxTokens) };
  return { ...agent, profile, resumeFrom };
}
