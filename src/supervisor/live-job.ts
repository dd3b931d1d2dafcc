/**
 * One supervised job, live: a real PTY feeding a headless screen, the job's
 * recording, its tool-event file and process sampler, all driving the same
 * pure Watchdog the drills use, on the system clock.
 */
import type { Clock } from '../core/clock.js';
import { PROBE_BLOCK } from '../core/task-state.js';
import { Watchdog } from '../core/watchdog.js';
import { Responder } from '../responder/responder.js';
import type { RuleBundle } from '../rules/bundle.js';
import { describeError } from '../util/errors.js';
import { DisposableStore } from '../util/lifecycle.js';
import type { RulesCoverage } from '../rules/coverage.js';
import { RecordedInput } from './job-input.js';
import { PersonActs, type AnswerInput } from './person-acts.js';
import type { PtyExit, PtyPort } from '../pty/pty-port.js';
import type { JobRecording } from '../record/job-recording.js';
import { localTerminal, type OpenedTerminal } from './job-terminal.js';
import { castHeader } from './cast-header.js';
import { DEFAULT_RECORDING_CAP } from '../record/cast-writer.js';
import { LIVE_PIECE, Screen } from '../screen/screen.js';
import { DeadlineTimer } from './deadline-timer.js';
import { UnansweredDecline } from './unanswered-decline.js';
import type { EvidenceLog } from './evidence.js';
import { isSuccess, shellExitCode } from '../core/outcome.js';
import type { Logger } from './logger.js';
import type { ProcSampler } from './proc-sampler.js';
import { ScreenFeed } from './screen-feed.js';
import { openRecords } from './job-records.js';
import { SystemClock } from './system-clock.js';
import type { BlockedPrompt, JobOptions, JobSpec, JobStatus, ScreenView } from './job-spec.js';
import { stopLadder } from './stop-ladder.js';
import { prepareLaunch, type AgentLaunch } from '../signals/wire.js';
import type { JobWarning } from './tree-agent.js';
import * as sink from './job-sinks.js';
import { attachAgentSignals, attachEventFile, procSampler, PromptSampler, toolEvent, type SourceHost } from './job-sources.js';
import { AgentSide, type AgentActs } from './agent-side.js';

export type { BlockedPrompt, JobOptions, JobSpec, JobStatus, ScreenView } from './job-spec.js';

export class LiveJob {
  readonly log: Logger;
  private readonly pty: PtyPort;
  private readonly watchdog: Watchdog;
  private readonly screenState: Screen;
  private readonly clock: Clock;
  private readonly cast: JobRecording;
  private readonly typed: RecordedInput;
  private readonly feed: ScreenFeed;
  private readonly screenView: ScreenView;
  private readonly timer: DeadlineTimer;
  private readonly procs: ProcSampler;
  private readonly promptSampler: PromptSampler;
  private readonly evidence: EvidenceLog;
  private readonly watchers = new sink.OutputWatchers();
  private readonly prompt = new sink.BlockedPromptSink();
  /** Every event of the job goes through here to its records and its owner (job-sinks.ts). */
  private readonly sinks: sink.JobSinks;
  private readonly agents: AgentSide;
  private readonly responder: Responder;
  /** Everything the job holds (child, recording, sampler, watchers, timers), released by one dispose(). */
  private readonly store: DisposableStore;
  private readonly sources: SourceHost;
  private exitInfo: PtyExit | undefined;
  private startupDone!: (ok: boolean) => void;
  private readonly startup = new Promise<boolean>((r) => (this.startupDone = r));
  private stopCause: string | undefined;
  private readonly person: PersonActs;
  private readonly unanswered: UnansweredDecline;
  private readonly startedAt: number;
  private readonly diskProblems = new Set<string>();
  /** Let go of without stopping (shutdown --detach): the child runs on in the PTY host. */
  private detached = false;
  /** Adopted after a restart: the output it printed before, to rebuild the screen from. */
  private readonly replay: Buffer | undefined;
  readonly finished: Promise<PtyExit>;

  /** Each resource is registered the moment it is taken, so a constructor that throws half-way releases what it took. */
  private constructor(
    private readonly spec: JobSpec,
    private readonly opts: JobOptions,
    store: DisposableStore,
    private readonly launch: AgentLaunch,
    opened: OpenedTerminal,
    start: number,
  ) {
    this.store = store;
    const p = opts.paths;
    this.clock = opts.clock ?? new SystemClock();
    const pty = opened.pty;
    this.pty = pty;
    this.replay = opened.adopted?.replay;
    store.add(() => {
      // A job released before it exited (a failed start) must not outlive its owner; one let go of on purpose runs on.
      if (pty.running && !this.detached) pty.kill('SIGKILL');
      pty.dispose();
    });
    this.startedAt = start;
    const { log, cast, evidence, summary } = openRecords(spec, opts, start, store, (file, e) => this.diskProblem(file, e), opened.recording);
    this.log = log;
    this.cast = cast;
    cast.onProblem?.((e) => this.diskProblem('recording.cast', e));
    this.evidence = evidence;
    this.typed = new RecordedInput(pty, this.cast, this.clock);
    this.screenState = new Screen(spec.cols, spec.rows, LIVE_PIECE);
    store.add(() => this.screenState.dispose());
    const bundle = opts.bundle.current;
    this.responder = new Responder(bundle.rules.risks, bundle.policy);
    this.watchdog = new Watchdog(bundle.rules, this.clock, opts.config, { responder: this.responder, env: spec.env });
    this.feed = new ScreenFeed(this.screenState, this.clock, (snapshot) => this.observe({ kind: 'screen', snapshot }), () => this.watchdog.nextDeadline(), {
      pause: () => pty.pause?.(),
      resume: () => pty.resume?.(),
    });
    this.screenView = this.feed.view();
    store.add(() => this.feed.dispose());
    this.sources = { log: this.log, store, marker: (label) => this.marker(label), observe: (signal) => this.observe(signal) };
    this.person = new PersonActs({
      id: p.id,
      watchdog: this.watchdog,
      typed: this.typed,
      evidence: this.evidence,
      log: this.log,
      agent: () => this.agents.agent,
      rules: () => this.opts.bundle.current.rules.prompts,
      now: () => this.clock.now(),
      marker: (label) => this.marker(label),
      observe: (signal) => this.observe(signal),
    });
    this.unanswered = new UnansweredDecline(this.clock, {
      watchdog: this.watchdog,
      log: this.log,
      setting: () => (this.opts.onUnanswered !== undefined ? this.opts.onUnanswered : this.opts.bundle.current.policy.onUnanswered ?? null),
      rules: () => this.opts.bundle.current.rules.prompts,
      decline: (by) => this.person.answer({ choice: 'decline' }, by),
    });
    this.sinks = new sink.JobSinks([
      this.prompt,
      sink.recordingSink(this.cast),
      sink.logSink(this.log),
      // Evidence before the keys sink: the record exists before a key is sent.
      sink.evidenceSink(this.evidence),
      sink.answerKeysSink(this.evidence, this.typed, this.log),
      sink.summarySink(summary),
      sink.unansweredSink(this.unanswered.watch),
      ...(opts.sinks ?? []),
      sink.callbackSink(opts),
      this.watchers,
      // Last: what the output means (the watchdog, the screen) comes after it is recorded and seen.
      { event: (e) => e.kind === 'output' && e.bytes.length > 0 && this.supervise(e.bytes) },
    ]);
    // Released before the recording and the log close, after the inputs below stop: the job's last words.
    store.add(() => this.writeFinalRecords());
    // A quiet job's tree is read seldom (ProcSampler): a deadline's decision gets a fresh reading.
    this.timer = new DeadlineTimer([this.watchdog, this.unanswered], this.clock, () => this.procs.fresh());
    store.add(() => this.timer.stop());
    this.agents = new AgentSide({ spec, opts, clock: this.clock, pid: pty.pid, startedAt: start, store, log: this.log, acts: this.agentActs() });
    this.procs = procSampler(pty.pid, this.clock, this.sources, (tree) => this.agents.processTree(tree));
    this.promptSampler = new PromptSampler(this.procs, () => pty.running);
    store.register(opts.bundle.subscribe((b) => this.applyBundle(b)));
    this.watchdog.listen({ transition: (transition) => this.emit({ kind: 'transition', transition }), action: (action) => this.emit({ kind: 'action', action }) });
    this.finished = this.pty.exited.then(async (e) => {
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
      job = new LiveJob(spec, { ...opts, clock }, store, launch, opened, start);
      await job.begin();
      job.startupDone(true);
      return job;
    } catch (e) {
      job?.startupDone(false);
      await store.dispose().catch((err: unknown) => opts.onProblem?.(`releasing a job that failed to start: ${describeError(err)}`));
      throw e;
    }
  }

  private async begin(): Promise<void> {
    const { spec, opts } = this;
    const wired = this.launch.args === spec.args ? {} : { launched_args: this.launch.args };
    if (!opts.resume) this.log.info({ command: spec.command, args: spec.args, ...wired, cwd: spec.cwd, pid: this.pty.pid }, 'job started');
    if (this.launch.problem) this.log.warn({ problem: this.launch.problem }, 'agent signals');
    if (opts.resume) {
      this.watchdog.resume(opts.resume.point);
      // What the block was paged for: show's prompt, the web's buttons, on_unanswered's wait go on from it.
      const paged = opts.resume.point.action;
      if (paged) {
        this.prompt.event({ kind: 'action', action: paged });
        this.unanswered.watch.action(paged);
      }
      this.log.info({ pid: this.pty.pid, state: opts.resume.point.state, reason: opts.resume.point.reason, replayed: this.replay?.length ?? 0 }, 'job adopted from the PTY host');
      // Straight to the screen, not through the sinks: the host recorded it, and it is not new activity.
      if (this.replay?.length) this.feed.push(this.replay);
    } else {
      this.watchdog.start();
    }
    this.agents.watchTree();
    this.pty.onOutput((chunk) =>
      this.emit({
        kind: 'output',
        t: this.clock.now(),
        bytes: chunk.bytes,
        get data() {
          return chunk.text();
        },
      }),
    );
    if (opts.answerQueries !== false) this.screenState.onReply((reply) => this.pty.write(reply));
    this.procs.start(opts.procSampleMs ?? 1_000);
    // An agent's tool calls come from its transcript; the event file too would count each call twice.
    if (!opts.agent) await attachEventFile(opts.paths.events, this.sources);
    if (opts.agent) this.agents.attach(opts.agent.kind, opts.agent.profile, opts.agent.resumeFrom ?? null);
    if (opts.agentKind && opts.agentKind !== 'generic') await attachAgentSignals(opts.agentKind, this.launch, spec, opts.paths, this.pty.pid, this.sources);
    this.timer.arm();
    // Not awaited: the version is a hint and must neither delay nor fail the start.
    if (opts.agentKind) void this.agents.checkCoverage(opts.agentKind);
  }

  /** What the job's watchers want a person to know though nothing is blocked (no transcript). */
  get warnings(): JobWarning[] {
    return this.agents.warnings;
  }

  /** The agent's version against the rules' `checked:` versions; null until read (or for a plain program). */
  get rulesCoverage(): RulesCoverage | null {
    return this.agents.rulesCoverage;
  }

  get id(): string {
    return this.opts.paths.id;
  }

  get screen(): ScreenView {
    return this.screenView;
  }

  get state(): Watchdog['state'] {
    return this.watchdog.state;
  }

  get reason(): Watchdog['reason'] {
    return this.watchdog.reason;
  }

  status(): JobStatus {
    return this.watchdog.status();
  }

  /** The child's exit, once it has been reported. */
  get exit(): PtyExit | undefined {
    return this.pty.exit;
  }

  /** Steps, tokens, final answer and verification, when the job runs an agent. */
  agentSummary() {
    return this.agents.agent?.summary();
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.emit({ kind: 'resize', t: this.clock.now(), cols, rows });
    this.feed.resize(cols, rows);
  }

  /**
   * Stops the job gracefully: interrupt (Ctrl-C through the terminal, so the
   * whole foreground process group gets it, as when a person presses it),
   * then SIGTERM, then SIGKILL, each after a grace period, until it exits.
   * `cause` becomes its done reason.
   */
  stop(cause: string, graceMs = 3_000): Promise<PtyExit> {
    if (this.pty.running) {
      this.stopCause ??= cause;
      // A paused program (on_escalate: pause) must run again to hear the interrupt and the SIGTERM.
      this.agents.agent?.continued();
      this.log.warn({ cause }, 'stopping job');
      stopLadder(this.pty, graceMs);
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
    this.pty.kill(signal);
  }

  /** Stops the recording (a marker says why): the disk is full and what is left of it belongs to the board. */
  suspendRecording(why: string): void {
    this.cast.suspend(this.clock.now(), why);
  }

  private diskProblem(file: string, e: Error): void {
    if (this.diskProblems.has(file)) return;
    this.diskProblems.add(file);
    this.opts.onDiskProblem?.(file, e);
  }

  /** Everything the job prints from now on (attach); returns the unsubscribe. */
  watchOutput(listener: (data: string) => void): () => void {
    return this.watchers.add(listener);
  }

  /** A person's acts (person-acts.ts): answer, continue, send, key. */
  answer(input: AnswerInput, who: string): Promise<readonly string[]> {
    return this.person.answer(input, who);
  }
  continueJob(who: string): void {
    this.person.continueJob(who);
  }
  personSend(text: string, enter: boolean, who: string): Promise<void> {
    return this.person.send(text, enter, who);
  }
  personKey(name: string, who: string): void {
    this.person.key(name, who);
  }
  /** `cancel`: recorded as the person's, then the graceful stop. */
  personCancel(who: string): Promise<PtyExit> {
    this.person.note('cancel', who);
    return this.stop('cancelled');
  }
  /** This job is a person's `resume` of another: said once, at its start. */
  resumedBy(who: string, from: string): void {
    this.person.note('resume', who, { from });
  }

  /**
   * Keystrokes from the person at the terminal (`attach`, `run`'s own
   * terminal); recorded as input. A line they enter while a probe holds the
   * job is their decision that it goes on, as `send` is.
   */
  input(data: string, who = 'terminal'): void {
    this.typed.raw(data);
    // Someone is at the terminal: on_unanswered waits for them.
    this.unanswered.watch.person();
    if (data.includes('\r')) this.person.typedLine(who);
  }

  /** What the job's agent may do to it (job-agent.ts). */
  private agentActs(): AgentActs {
    return {
      marker: (label) => this.marker(label),
      toolEvent: (e) => toolEvent(this.sources, e),
      action: (action) => this.emit({ kind: 'action', action }),
      block: (probe, text) => {
        this.observe({ kind: 'probe', probe, text });
        return this.watchdog.reason.code === `${PROBE_BLOCK}${probe}`;
      },
      sendKey: (name) => this.typed.key(name),
      verdict: (record) => this.evidence.record({ ...record, time: iso(this.clock.now()) }),
      sendText: (text) => this.typed.text(text),
      stop: (cause) => void this.stop(cause),
      state: () => this.watchdog.state,
      screen: () => this.screenView.snapshot().rows,
    };
  }

  private applyBundle(b: RuleBundle): void {
    this.watchdog.setRules(b.rules);
    this.responder.update(b.rules.risks, b.policy);
    this.log.info({ prompts: b.rules.prompts.length, policy: b.policy.file }, 'rules and policy reloaded');
  }

  private emit(e: sink.JobEvent): void {
    this.sinks.emit(e);
  }

  private marker(label: string): void {
    this.emit({ kind: 'marker', t: this.clock.now(), label });
  }

  private observe(signal: Parameters<Watchdog['observe']>[0]): void {
    // Once nightshift decided to stop the job, what it prints while dying (a ^C echo)
    // is not activity: it must not end an episode or page anew. The recording keeps it.
    if (this.stopCause !== undefined) return;
    this.watchdog.observe(signal);
    if (signal.kind === 'person') this.unanswered.watch.person();
    if (signal.kind === 'screen') this.promptSampler.candidate(this.watchdog.status().promptCandidate);
    this.timer.arm();
  }

  /** Output, once recorded and seen: activity to the watchdog, a sign of life to the tree finder, bytes to the screen. */
  private supervise(data: Buffer): void {
    this.observe({ kind: 'output' });
    this.agents.output();
    this.procs.poke();
    this.feed.push(data);
  }

  /** The prompt the job is blocked on now, as the watchdog last acted on it, with its rule; null when not blocked on one. */
  blockedPrompt(): BlockedPrompt | null {
    const a = this.prompt.current;
    if (!a || this.watchdog.state !== 'blocked') return null;
    return { action: a, rule: this.opts.bundle.current.rules.prompts.find((r) => r.id === a.rule) ?? null };
  }

  /** Releases everything the job holds; the final records are written on the way (writeFinalRecords). */
  private async onExit(e: PtyExit): Promise<void> {
    await this.feed.settled();
    this.exitInfo = e;
    this.watchers.clear();
    await this.store.dispose().catch((err: unknown) => this.opts.onProblem?.(`job ${this.id} teardown: ${describeError(err)}`));
  }

  /** The exit in the recording, the done state, the summary and the resume card; nothing when the job never started. */
  private async writeFinalRecords(): Promise<void> {
    const e = this.exitInfo;
    if (!e) return;
    // An exit the PTY host saw while no daemon watched happened then, not now.
    const now = e.at ? Math.min(Date.parse(e.at), this.clock.now()) : this.clock.now();
    this.emit({ kind: 'exit', t: now, code: shellExitCode(e) });
    this.watchdog.observe({
      kind: 'exit',
      exitCode: e.signal || e.lost ? null : e.exitCode,
      signal: e.signal,
      at: now,
      ...(this.stopCause ? { stoppedFor: this.stopCause } : {}),
      ...(e.lost ? { detail: e.lost } : {}),
    });
    const reason = this.watchdog.reason;
    // Emitted in the same tick as the done transition: the summary's last rewrite is under way before anyone can see done, and a daemon's reply waits for it (filesWritten).
    const agent = this.agents.agent;
    this.emit({ kind: 'finish', t: now, reason, screen: this.screenView.text(), agent: agent?.summary() });
    // Finished its task (exit 0, or a turn that ended with nothing held against it): no card.
    if (agent && !isSuccess(reason)) await agent.writeCard(reason.code, reason.detail ?? null, now - this.startedAt);
    this.log.info({ exitCode: e.exitCode, signal: e.signal }, 'job ended');
  }
}

const iso = (t: number) => new Date(t).toISOString();
