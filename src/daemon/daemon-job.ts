/**
 * A board job running inside the daemon: a LiveJob whose transitions go to
 * the board, whose escalations page a person (one page per episode), and
 * whose budgets (wall clock, no progress, tokens) stop it when they trip.
 */
import type { Transition } from '../core/task-state.js';
import type { Action, WatchdogConfig } from '../core/watchdog-types.js';
import type { Board } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import type { Pager } from '../notify/pager.js';
import type { Page } from '../notify/page.js';
import type { BundleSource } from '../rules/live-bundle.js';
import type { PromptRule } from '../core/prompt-match.js';
import { exitStatus, isSuccess, wireReason } from '../core/outcome.js';
import { redactorFor, type Redactor } from '../notify/secrets.js';
import { createJobDir } from '../supervisor/job-dir.js';
import { detectAgent } from '../adapters/index.js';
import type { RulesCoverage } from '../rules/coverage.js';
import { agentOption } from '../supervisor/agent-option.js';
import { LiveJob } from '../supervisor/live-job.js';
import type { JobWarning } from '../supervisor/tree-agent.js';
import { actionPage, cliCommand, type PageBase } from './job-pages.js';

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

// Each write waits for the disk (synchronous=FULL): a job's heartbeat need not be finer.
const ACTIVITY_WRITE_MS = 2_000;
const BUDGET_CHECK_MS = 1_000;

export class DaemonJob {
  private budgetTimer: NodeJS.Timeout | undefined;
  private lastActivityWrite = 0;
  private episode = 0;
  /** The page key of the block a person was paged for, while it lasts (what a page's Decline must still match). */
  private pagedBlock: string | null = null;
  private tripped = false;

  private liveJob: LiveJob | undefined;
  /** The job's own `--env` values and pattern secrets out of its pages, log, evidence and summary. */
  private readonly redact: Redactor;

  private constructor(
    readonly record: JobRecord,
    private readonly deps: DaemonJobDeps,
  ) {
    this.redact = redactorFor(record.env);
  }

  /** The job's own callbacks exist before its PTY does: a job that ends at once still reaches the board. */
  static async start(rec: JobRecord, deps: DaemonJobDeps): Promise<DaemonJob> {
    const job = new DaemonJob(rec, deps);
    const paths = createJobDir(deps.stateDir, rec.id);
    const { id: _id, ...files } = paths;
    deps.board.update(rec.id, { paths: files });
    const [command, ...args] = rec.command as [string, ...string[]];
    const agent = withBudget(await agentOption(rec.command, deps.rulesPath, rec.env.NIGHTSHIFT_AGENT, rec.env.NIGHTSHIFT_PROFILE), rec);
    job.liveJob = await LiveJob.start(
      { command, args, cwd: rec.cwd, env: { ...(process.env as Record<string, string>), ...rec.env }, cols: 120, rows: 40, name: rec.name },
      {
        paths,
        bundle: deps.bundle,
        ...(agent ? { agent } : {}),
        lateAgent: async (kind) => withBudget(await agentOption([kind], deps.rulesPath, kind, rec.env.NIGHTSHIFT_PROFILE), rec),
        onWarning: (w) => job.guarded('warning page', () => job.pageWarning(w)),
        agentKind: detectAgent(rec.command, rec.env.NIGHTSHIFT_AGENT),
        ...(deps.onCoverage ? { onCoverage: (c: RulesCoverage) => deps.onCoverage?.(rec, c) } : {}),
        onProblem: (problem) => deps.onLog(problem, { job: rec.id }),
        config: deps.config,
        answerQueries: true,
        redact: job.redact,
        ...(deps.recordingCap ? { recordingCap: deps.recordingCap } : {}),
        onDiskProblem: (file, e) => deps.onDiskProblem(job, file, e),
        ...(rec.on_unanswered ? { onUnanswered: { afterMs: rec.on_unanswered.after_ms, do: rec.on_unanswered.do } } : {}),
        onTransition: (t) => job.onTransition(t),
        onAction: (a) => job.onAction(a),
        onOutput: () => job.guarded('last activity', () => job.onActivity()),
      },
    );
    if (rec.resume_from?.by) job.liveJob.resumedBy(rec.resume_from.by, rec.resume_from.job);
    job.budgetTimer = setInterval(() => job.guarded('budget check', () => job.checkBudgets()), BUDGET_CHECK_MS);
    job.budgetTimer.unref();
    void job.live.finished.finally(() => clearInterval(job.budgetTimer));
    return job;
  }

  get live(): LiveJob {
    if (!this.liveJob) throw new Error(`job ${this.record.id} has not started`);
    return this.liveJob;
  }

  get id(): string {
    return this.record.id;
  }

  /** The prompt rules in force for this job now (they follow reloads). */
  promptRules(): readonly PromptRule[] {
    return this.deps.bundle.current.rules.prompts;
  }

  /**
   * The key (`<job id>:<episode>`) of the page for the block the job is in
   * now; null when it is running, or blocked on something nobody was paged
   * for (an automatic answer still being checked).
   */
  get blockedEpisode(): string | null {
    return this.pagedBlock;
  }

  private onTransition(t: Transition): void {
    if (t.from === 'blocked') this.pagedBlock = null;
    try {
      this.deps.board.transition(this.id, t.to, wireReason(t.reason), t.t);
      if (t.to === 'done') this.deps.board.update(this.id, { exit: { code: exitStatus(t.reason), signal: t.reason.signal ?? null } });
    } catch (e) {
      // The board refuses a move it cannot make (the job was settled elsewhere); the job's own records still have it.
      this.deps.onLog('board refused a transition', { job: this.id, to: t.to, reason: t.reason.code, err: String(e) });
    }
    try {
      // An unblocked or ended episode needs no more pages — except the budget page a trip just queued.
      if (!this.tripped && ((t.from === 'blocked' && t.to === 'running') || t.to === 'done')) this.deps.pager.resolve(this.id);
      if (t.to === 'done' && failedOnItsOwn(t.reason)) this.pageFailure(t);
    } catch (e) {
      // The board closed under a job the daemon gave up waiting for (shutdown --now): its own files still have it.
      this.deps.onLog('could not update pages', { job: this.id, err: String(e) });
    }
  }

  /** A job that ended on its own without success (exit ≠ 0, a signal) pages: a person expects to hear of it. */
  private pageFailure(t: Transition): void {
    const how = t.reason.signal ? `killed by ${t.reason.signal}` : `exit code ${t.reason.exitCode}`;
    this.deps.pager.page({
      ...this.pageBase(),
      key: `${this.id}:failed`,
      kind: 'failed',
      state: 'done',
      reason: t.reason.code,
      prompt: `${this.record.name} failed: ${how}`,
      urgent: false,
      answer_command: cliCommand(this.deps.stateDir, 'logs', this.record.name),
    }, this.redact);
  }

  private onAction(a: Action): void {
    // A probe's stop (the step budget) is a budget trip the agent's transcript found: paged as the daemon's own are.
    if (a.kind === 'stop') return this.pageStop(a.reason, a.text);
    if (a.kind !== 'escalate') return;
    this.episode++;
    this.pagedBlock = `${this.id}:${this.episode}`;
    this.deps.pager.page(this.pageFor(a), this.redact);
  }

  private pageStop(reason: string, text: string | null): void {
    this.tripped = true;
    this.pagedBlock = null;
    this.deps.pager.resolve(this.id);
    this.episode++;
    this.deps.pager.page({ ...this.pageBase(), kind: 'budget', reason, prompt: text, urgent: true, key: `${this.id}:${this.episode}` }, this.redact);
  }

  /** A board write that fails (SQLITE_FULL on a full disk) must not become an uncaught exception in a PTY or timer callback. */
  private guarded(what: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.deps.onLog(`${what} failed`, { job: this.id, err: String(e) });
    }
  }

  /** A page that the disk under the state directory is full: the job goes on, its recording stopped. */
  pageDiskFull(file: string, e: Error): void {
    this.deps.pager.page({
      ...this.pageBase(),
      key: `${this.id}:disk`,
      kind: 'disk',
      reason: 'disk',
      prompt: `cannot write ${file} of ${this.record.name} (${e.message}); the job keeps running, recordings are paused`,
      urgent: true,
    }, this.redact);
  }

  /** Once per job: a warning blocks nothing, so it is no episode and not urgent. */
  private pageWarning(w: JobWarning): void {
    this.deps.pager.page({ ...this.pageBase(), key: `${this.id}:${w.code}`, kind: 'other', reason: w.code, prompt: w.message, urgent: false }, this.redact);
  }

  private onActivity(): void {
    const now = this.deps.now();
    if (now - this.lastActivityWrite < ACTIVITY_WRITE_MS) return;
    this.lastActivityWrite = now;
    this.deps.board.update(this.id, { last_activity: new Date(now).toISOString() });
  }

  /** The strictest budget wins: whichever trips first stops the job with its reason. */
  private checkBudgets(): void {
    const b = this.record.budgets;
    const now = this.deps.now();
    const started = Date.parse(this.deps.board.require(this.id).started ?? new Date(now).toISOString());
    if (b.wall_ms !== null && now - started >= b.wall_ms) return this.trip('budget:wall', `ran ${Math.round((now - started) / 1000)}s, cap ${b.wall_ms / 1000}s`);
    const status = this.live.watchdog.status();
    // A busy child is progress right now (the watchdog reports it as +Infinity).
    const progress = Number.isFinite(status.lastProgress) ? status.lastProgress : now;
    if (progress - this.lastActivityWrite >= ACTIVITY_WRITE_MS) {
      this.lastActivityWrite = progress;
      this.deps.board.update(this.id, { last_activity: new Date(progress).toISOString() });
    }
    if (b.no_progress_ms !== null && now - progress >= b.no_progress_ms) {
      return this.trip('budget:no-progress', `no progress for ${Math.round((now - progress) / 1000)}s`);
    }
    const tokens = this.live.agentSummary()?.tokens;
    if (tokens) this.deps.board.update(this.id, { tokens_used: tokens });
    const used = tokens ?? this.deps.board.require(this.id).tokens_used;
    if (b.tokens !== null && used !== null && used >= b.tokens) this.trip('budget:tokens', `${used} tokens used, cap ${b.tokens}`);
  }

  private trip(cause: string, detail: string): void {
    clearInterval(this.budgetTimer);
    this.deps.onLog('budget tripped', { job: this.id, cause, detail });
    this.pageStop(cause, `${cause}: ${detail}`);
    void this.live.stop(cause);
  }

  private pageBase(): PageBase {
    const rows = this.liveJob?.screen.snapshot().rows.filter((r) => r.trim() !== '') ?? [];
    return {
      job: this.id,
      name: this.record.name,
      state: this.liveJob?.watchdog.state ?? 'running',
      rule: null,
      class: null,
      screen: rows.slice(-8),
      answer_command: cliCommand(this.deps.stateDir, 'show', this.record.name),
      time: new Date(this.deps.now()).toISOString(),
    };
  }

  private pageFor(a: Action): Page {
    const rule = this.deps.bundle.current.rules.prompts.find((r) => r.id === a.rule);
    return actionPage(a, this.pageBase(), `${this.id}:${this.episode}`, this.deps.stateDir, rule);
  }
}

/**
 * The job's step budget is the probe profile's max_steps unless the board
 * gives one (a resumed job: what was left plus what was granted), and a
 * resumed job follows the old transcript past what the old job judged.
 */
function withBudget(agent: Awaited<ReturnType<typeof agentOption>>, rec: JobRecord) {
  if (!agent) return undefined;
  const steps = rec.budgets.steps;
  return { ...agent, profile: steps === null ? agent.profile : { ...agent.profile, maxSteps: steps }, resumeFrom: rec.resume_from };
}

/** Ended by itself (not stopped by nightshift or a person) and did not succeed. */
function failedOnItsOwn(r: Transition['reason']): boolean {
  return (r.code === 'exit' || r.code === 'signal') && !isSuccess(r);
}
