/**
 * One supervised job, live: a real PTY feeding a headless screen, the job's
 * recording, its tool-event file and process sampler, all driving the same
 * pure Watchdog the drills use, on the system clock. How those parts are
 * wired is job-core.ts; this is the job as its owner holds it.
 */
import { wrapUpAt } from '../agents/wrap-up.js';
import type { Watchdog } from '../core/watchdog.js';
import { describeError } from '../util/errors.js';
import { trackWrite } from '../util/atomic-write.js';
import { DisposableStore } from '../util/lifecycle.js';
import type { RulesCoverage } from '../rules/coverage.js';
import type { PersonActs } from './person-acts.js';
import type { PromptRule } from '../core/prompt-match.js';
import type { PtyExit } from '../pty/pty-port.js';
import { localTerminal, type OpenedTerminal } from './job-terminal.js';
import { castHeader } from './cast-header.js';
import { DEFAULT_RECORDING_CAP } from '../record/cast-writer.js';
import { isSuccess, shellExitCode } from '../core/outcome.js';
import type { Logger } from './logger.js';
import { SystemClock } from './system-clock.js';
import type { BlockedPrompt, JobOptions, JobSpec, JobStatus, ScreenView } from './job-spec.js';
import { stopLadder } from './stop-ladder.js';
import { prepareLaunch } from '../signals/wire.js';
import type { JobWarning } from './tree-agent.js';
import { JobCore } from './job-core.js';

export type { BlockedPrompt, JobOptions, JobSpec, JobStatus, ScreenView } from './job-spec.js';

export class LiveJob {
  readonly log: Logger;
  private readonly core: JobCore;
  private exitInfo: PtyExit | undefined;
  private startupDone!: (ok: boolean) => void;
  private readonly startup = new Promise<boolean>((r) => (this.startupDone = r));
  private stopCause: string | undefined;
  /** Let go of without stopping (shutdown --detach): the child runs on in the PTY host. */
  private detached = false;
  readonly finished: Promise<PtyExit>;

  private constructor(
    spec: JobSpec,
    private readonly opts: JobOptions,
    /** Everything the job holds (child, recording, sampler, watchers, timers), released by one dispose(). */
    private readonly store: DisposableStore,
    opened: OpenedTerminal,
    private readonly startedAt: number,
  ) {
    this.core = new JobCore(spec, opts, opts.clock ?? new SystemClock(), store, opened, startedAt, {
      stopCause: () => this.stopCause,
      detached: () => this.detached,
      finalRecords: () => this.writeFinalRecords(),
      stop: (cause) => this.stop(cause),
    });
    this.log = this.core.log;
    this.finished = this.core.pty.exited.then(async (e) => {
      // The PTY host died under it: whatever stop was under way, the job is lost.
      if (e.lost) this.stopCause = 'lost';
      // Teardown waits for the start to finish: an exit during start must not close what start is still opening.
      if (await this.startup) await this.onExit(e);
      return e;
    });
  }

  /**
   * Spawns the job. All or nothing: if any step fails, everything already
   * taken (child, recording, sampler, watchers) is released and the error
   * is thrown; bad input (cwd, command) throws InputError before anything is
   * written.
   */
  static async start(spec: JobSpec, opts: JobOptions): Promise<LiveJob> {
    const store = new DisposableStore();
    let job: LiveJob | undefined;
    try {
      const p = opts.paths;
      const launch = await prepareLaunch(opts.agentKind, spec, p);
      const env = { ...launch.env, NIGHTSHIFT_EVENTS: p.events, NIGHTSHIFT_JOB_ID: p.id, NIGHTSHIFT_JOB_DIR: p.dir };
      const clock = opts.clock ?? new SystemClock();
      const start = opts.resume?.startedAt ?? clock.now();
      const opened = await (opts.terminal ?? localTerminal).open({
        id: p.id,
        spawn: { command: spec.command, args: [...launch.args], cwd: spec.cwd, env, cols: spec.cols, rows: spec.rows },
        recording: { path: p.recording, header: castHeader(spec, start), cap: opts.recordingCap ?? DEFAULT_RECORDING_CAP },
      });
      job = new LiveJob(spec, { ...opts, clock }, store, opened, start);
      await job.core.begin(launch);
      job.startupDone(true);
      return job;
    } catch (e) {
      job?.startupDone(false);
      await store.dispose().catch((err: unknown) => opts.onProblem?.(`releasing a job that failed to start: ${describeError(err)}`));
      throw e;
    }
  }

  /** What the job's watchers want a person to know though nothing is blocked (no transcript). */
  get warnings(): JobWarning[] {
    return this.core.agents.warnings;
  }

  /** The agent's version against the rules' `checked:` versions; null until read (or for a plain program). */
  get rulesCoverage(): RulesCoverage | null {
    return this.core.agents.rulesCoverage;
  }

  get id(): string {
    return this.opts.paths.id;
  }

  get screen(): ScreenView {
    return this.core.screenView;
  }

  get state(): Watchdog['state'] {
    return this.core.watchdog.state;
  }

  get reason(): Watchdog['reason'] {
    return this.core.watchdog.reason;
  }

  status(): JobStatus {
    return this.core.watchdog.status();
  }

  /** The child's exit, once it has been reported. */
  get exit(): PtyExit | undefined {
    return this.core.pty.exit;
  }

  /** Steps, tokens, final answer and verification, when the job runs an agent. */
  agentSummary() {
    return this.core.agents.agent?.summary();
  }

  /** When a wall cap of `capMs` reaches the agent's wrap-up reserve, ms from the start; null without an agent, or off. */
  wrapUpAt(capMs: number): number | null {
    return wrapUpAt(capMs, this.core.agents.agent?.wrapUpShare ?? null);
  }

  /** A budget the daemon keeps (wall) reached its reserve: the agent is asked for its hand-off. */
  wrapUp(usedMs: number, capMs: number): void {
    this.core.agents.agent?.wrapUp(usedMs, capMs);
  }

  resize(cols: number, rows: number): void {
    this.core.pty.resize(cols, rows);
    this.core.emit({ kind: 'resize', t: this.core.clock.now(), cols, rows });
    this.core.feed.resize(cols, rows);
  }

  /**
   * Stops the job gracefully: interrupt (Ctrl-C through the terminal, so the
   * whole foreground process group gets it, as when a person presses it),
   * then SIGTERM, then SIGKILL, each after a grace period, until it exits.
   * `cause` becomes its done reason.
   */
  stop(cause: string, graceMs = 3_000): Promise<PtyExit> {
    if (this.core.pty.running) {
      this.stopCause ??= cause;
      // A paused program (on_escalate: pause) must run again to hear the interrupt and the SIGTERM.
      this.core.agents.agent?.continued();
      this.log.warn({ cause }, 'stopping job');
      stopLadder(this.core.pty, graceMs);
    }
    return this.finished;
  }

  /**
   * Lets go of the job without stopping it (shutdown --detach): everything
   * of ours is released, the child runs on in the PTY host, and no final
   * record is written: the next daemon adopts it and writes them.
   */
  async detach(): Promise<void> {
    this.detached = true;
    this.startupDone(true);
    await this.store.dispose();
  }

  /** No ladder: the daemon's last resort when a graceful stop ran out of time. */
  kill(signal: NodeJS.Signals): void {
    this.core.pty.kill(signal);
  }

  /** Stops the recording (a marker says why): the disk is full and what is left of it belongs to the board. */
  suspendRecording(why: string): void {
    this.core.cast.suspend(this.core.clock.now(), why);
  }

  /** Everything the job prints from now on (attach); returns the unsubscribe. */
  watchOutput(listener: (data: string) => void): () => void {
    const sub = this.core.watchers.onOutput(listener);
    return () => void sub.dispose();
  }

  /** What a person may do to the job (person-acts.ts), given whole: no act is forwarded here one by one. */
  get acts(): PersonActs {
    return this.core.person;
  }

  /** The prompt the job is blocked on now, as the watchdog last acted on it, with its rule; null when not blocked on one. */
  blockedPrompt(): BlockedPrompt | null {
    const a = this.core.prompt.current;
    if (!a || this.core.watchdog.state !== 'blocked') return null;
    return { action: a, rule: this.rule(a.rule) ?? null };
  }

  /** The rule of the prompt the job is blocked on now, as the watchdog's reason names it. */
  blockedRule(): PromptRule | undefined {
    const reason = this.core.watchdog.reason;
    const ruleId = reason.code === 'prompt' ? reason.rule : undefined;
    return ruleId ? this.rule(ruleId) : undefined;
  }

  /** The prompt rules in force for this job now: they follow reloads. */
  private rule(id: string | null): PromptRule | undefined {
    return this.opts.bundle.current.rules.prompts.find((r) => r.id === id);
  }

  /** Releases everything the job holds; the final records are written on the way (writeFinalRecords). */
  private async onExit(e: PtyExit): Promise<void> {
    await this.core.feed.settled();
    this.exitInfo = e;
    this.core.watchers.clear();
    await this.store.dispose().catch((err: unknown) => this.core.emit({ kind: 'problem', message: `job ${this.id} teardown: ${describeError(err)}` }));
  }

  /** The exit in the recording, the done state, the summary and the resume card; nothing when the job never started. */
  private async writeFinalRecords(): Promise<void> {
    const e = this.exitInfo;
    if (!e) return;
    const { clock, watchdog } = this.core;
    // An exit the PTY host saw while no daemon watched happened then, not now.
    const now = e.at ? Math.min(Date.parse(e.at), clock.now()) : clock.now();
    this.core.emit({ kind: 'exit', t: now, code: shellExitCode(e) });
    watchdog.observe({
      kind: 'exit',
      exitCode: e.signal || e.lost ? null : e.exitCode,
      signal: e.signal,
      at: now,
      ...(this.stopCause ? { stoppedFor: this.stopCause } : {}),
      ...(e.lost ? { detail: e.lost } : {}),
    });
    const reason = watchdog.reason;
    // Emitted in the same tick as the done transition: the summary's last rewrite is under way before anyone can see done, and a daemon's reply waits for it (filesWritten).
    const agent = this.core.agents.agent;
    this.core.emit({ kind: 'finish', t: now, reason, screen: this.core.screenView.text(), agent: agent?.summary() });
    // Finished its task (exit 0, or a turn that ended with nothing held against it): no card.
    // Started in that same tick too, so a reply that shows done shows its card.
    if (agent && !isSuccess(reason)) await trackWrite(agent.writeCard(reason.code, reason.detail ?? null, now - this.startedAt));
    this.log.info({ exitCode: e.exitCode, signal: e.signal }, 'job ended');
  }
}
