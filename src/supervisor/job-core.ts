/**
 * The inside of a live job (LiveJob is what its owner holds): its terminal,
 * records, headless screen and watchdog, a person's and the agent's sides,
 * the sinks every event goes through, and the samplers and deadlines that
 * feed the watchdog besides the output.
 */
import type { Clock } from '../core/clock.js';
import { PROBE_BLOCK } from '../core/task-state.js';
import { Watchdog, type ResumePoint } from '../core/watchdog.js';
import { Responder } from '../responder/responder.js';
import type { RuleBundle } from '../rules/bundle.js';
import type { DisposableStore } from '../util/lifecycle.js';
import { describeError } from '../util/errors.js';
import { Emitter } from '../util/event.js';
import { RecordedInput } from './job-input.js';
import type { PersonActs } from './person-acts.js';
import type { PtyPort } from '../pty/pty-port.js';
import type { JobRecording } from '../record/job-recording.js';
import type { OpenedTerminal } from './job-terminal.js';
import { LIVE_PIECE, Screen } from '../screen/screen.js';
import { readTtyMode } from '../pty/tty-mode.js';
import { QueryReplies } from './query-replies.js';
import { DeadlineTimer } from './deadline-timer.js';
import type { UnansweredDecline } from './unanswered-decline.js';
import type { EvidenceLog } from './evidence.js';
import type { Logger } from './logger.js';
import type { ProcSampler } from './proc-sampler.js';
import { ScreenFeed } from './screen-feed.js';
import { openRecords } from './job-records.js';
import type { JobSummary } from './summary.js';
import type { JobOptions, JobSpec, ScreenView } from './job-spec.js';
import type { AgentLaunch } from '../signals/wire.js';
import type { JobEvent } from './job-events.js';
import * as sink from './job-sinks.js';
import { attachAgentSignals, attachEventFile, procSampler, PromptSampler, toolEvent, type SourceHost } from './job-sources.js';
import { AgentSide, type AgentActs } from './agent-side.js';
import { PersonSide } from './person-side.js';

/** What the core needs from its LiveJob (kept narrow so the two files stay apart). */
export interface CoreHost {
  /** The cause nightshift stops the job for, once it decided to. */
  stopCause(): string | undefined;
  /** Let go of without stopping (shutdown --detach): the child runs on in the PTY host. */
  detached(): boolean;
  /** The job's last words, written as the store releases it. */
  finalRecords(): Promise<void>;
  /** The graceful stop; settles when the job has ended. */
  stop(cause: string): Promise<unknown>;
}

export class JobCore {
  readonly log: Logger;
  readonly pty: PtyPort;
  readonly watchdog: Watchdog;
  private readonly screenState: Screen;
  /** The program's terminal queries answered only where it can read the answer. */
  private readonly replies: QueryReplies;
  readonly cast: JobRecording;
  readonly typed: RecordedInput;
  readonly feed: ScreenFeed;
  readonly screenView: ScreenView;
  private readonly timer: DeadlineTimer;
  private readonly procs: ProcSampler;
  private readonly promptSampler: PromptSampler;
  private readonly evidence: EvidenceLog;
  readonly watchers = new sink.OutputWatchers();
  readonly prompt = new sink.BlockedPromptSink();
  /**
   * Every event of the job goes through here to its records and its owner
   * (job-sinks.ts); held until the sinks exist (a disk problem with the
   * recording's header comes before they do).
   */
  private readonly events = new Emitter<JobEvent>({ buffer: EARLY_EVENTS });
  readonly agents: AgentSide;
  private readonly responder: Responder;
  private readonly sources: SourceHost;
  private readonly persons: PersonSide;
  readonly person: PersonActs;
  readonly unanswered: UnansweredDecline;
  private readonly diskProblems = new Set<string>();
  /** Sink and event kind of each failure already reported: a sink that throws on every byte is said once. */
  private readonly sinkFailures = new Set<string>();
  /** Adopted after a restart: the output it printed before, to rebuild the screen from. */
  private readonly replay: Buffer | undefined;

  /** Each resource is registered the moment it is taken, so a constructor that throws half-way releases what it took. */
  constructor(
    private readonly spec: JobSpec,
    private readonly opts: JobOptions,
    readonly clock: Clock,
    store: DisposableStore,
    opened: OpenedTerminal,
    start: number,
    private readonly host: CoreHost,
  ) {
    const pty = opened.pty;
    this.pty = pty;
    this.replay = opened.adopted?.replay;
    store.add(() => {
      // A job released before it exited (a failed start) must not outlive its owner; one let go of on purpose runs on.
      if (pty.running && !host.detached()) pty.kill('SIGKILL');
      pty.dispose();
    });
    const { log, cast, evidence, summary } = openRecords(spec, opts, start, store, (file, e) => this.diskProblem(file, e), opened.recording);
    this.log = log;
    this.cast = cast;
    // Not released with the store: the host may report the last words' write after the store let go; it goes with the HostedPty.
    cast.onProblem?.((e) => this.diskProblem('recording.cast', e));
    this.evidence = evidence;
    this.typed = new RecordedInput(pty, this.cast, this.clock);
    this.screenState = new Screen(spec.cols, spec.rows, LIVE_PIECE);
    store.add(() => this.screenState.dispose());
    this.replies = new QueryReplies(
      () => readTtyMode(pty.pid),
      (reply) => pty.write(reply),
      (reply) => this.log.info({ reply: JSON.stringify(reply) }, 'terminal query not answered: the terminal is in canonical mode'),
    );
    store.add(() => this.replies.dispose());
    const bundle = opts.bundle.current;
    this.responder = new Responder(bundle.rules.risks, bundle.policy);
    this.watchdog = new Watchdog(bundle.rules, this.clock, opts.config, { responder: this.responder, env: spec.env });
    this.feed = this.screenFeed();
    this.screenView = this.feed.view();
    store.add(() => this.feed.dispose());
    this.sources = { log: this.log, store, marker: (label) => this.marker(label), observe: (signal) => this.observe(signal) };
    this.persons = new PersonSide({
      opts, clock: this.clock, watchdog: this.watchdog, typed: this.typed, evidence: this.evidence, log: this.log,
      agent: () => this.agents.agent, marker: (label) => this.marker(label), observe: (signal) => this.observe(signal), emit: (e) => this.emit(e),
      terminalReply: (reply) => this.replies.reply(reply), stop: (cause) => host.stop(cause), screen: () => this.screenView.snapshot().rows,
    });
    this.person = this.persons.acts;
    this.unanswered = this.persons.unanswered;
    const sinks = this.jobSinks(summary);
    this.events.event((e) => sinks.emit(e));
    // Released before the recording and the log close, after the inputs below stop: the job's last words.
    store.add(() => host.finalRecords());
    // A quiet job's tree is read seldom (ProcSampler): a deadline's decision gets a fresh reading.
    this.timer = new DeadlineTimer([this.watchdog, this.unanswered, this.persons.ceiling], this.clock, () => this.procs.fresh());
    store.add(() => this.timer.stop());
    this.agents = new AgentSide({ spec, opts, clock: this.clock, pid: pty.pid, startedAt: start, store, log: this.log, acts: this.agentActs(), emit: (e) => this.emit(e) });
    this.procs = procSampler(pty.pid, this.clock, this.sources, (tree) => this.agents.processTree(tree));
    this.promptSampler = new PromptSampler(this.procs, () => pty.running);
    store.register(opts.bundle.subscribe((b) => this.applyBundle(b)));
    this.watchdog.listen({ transition: (transition) => this.emit({ kind: 'transition', transition }), action: (action) => this.emit({ kind: 'action', action }) });
  }

  private screenFeed(): ScreenFeed {
    const { pty } = this;
    return new ScreenFeed(this.screenState, this.clock, (snapshot) => this.observe({ kind: 'screen', snapshot }), () => this.watchdog.nextDeadline(), {
      pause: () => pty.pause?.(),
      resume: () => pty.resume?.(),
    });
  }

  private jobSinks(summary: JobSummary): sink.JobSinks {
    return new sink.JobSinks([
      this.prompt,
      sink.recordingSink(this.cast),
      sink.logSink(this.log),
      // Evidence before the keys sink: the record exists before a key is sent.
      sink.evidenceSink(this.evidence),
      sink.answerKeysSink(this.evidence, this.typed, this.log),
      sink.summarySink(summary),
      ...this.persons.sinks(),
      ...(this.opts.sinks ?? []),
      sink.callbackSink(this.opts),
      this.watchers,
      // Last: what the output means (the watchdog, the screen) comes after it is recorded and seen.
      { name: 'supervision', event: (e) => e.kind === 'output' && e.bytes.length > 0 && this.supervise(e.bytes) },
    ], (err, e, name) => this.sinkFailed(err, e, name));
  }

  private sinkFailed(err: unknown, e: JobEvent, name: string): void {
    const key = `${name}\n${e.kind}`;
    if (this.sinkFailures.has(key)) return;
    this.sinkFailures.add(key);
    const why = describeError(err);
    this.log.error({ sink: name, event: e.kind, err: why }, 'a sink failed; the job goes on without it for this event');
    // Straight to the owner, not through the sinks: one of them is what failed.
    this.opts.onProblem?.(`job ${this.opts.paths.id}: the ${name} sink failed on ${e.kind} (${why}); the job goes on`);
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
      verdict: (record) => {
        const t = this.clock.now();
        this.evidence.record({ ...record, time: iso(t) });
        // The binder's records (what an escalation did to the process) go through here too; only a probe's verdict is news.
        const r = record as { type?: unknown; probe?: unknown; response?: unknown };
        if (r.type === 'verdict' && typeof r.probe === 'string') this.emit({ kind: 'verdict', t, probe: r.probe, response: String(r.response) });
      },
      sendText: (text) => this.typed.text(text),
      stop: (cause) => this.host.stop(cause),
      state: () => this.watchdog.state,
      reason: () => this.watchdog.reason.code,
      screen: () => this.screenView.snapshot().rows,
    };
  }

  async begin(launch: AgentLaunch): Promise<void> {
    const { spec, opts } = this;
    const wired = launch.args === spec.args ? {} : { launched_args: launch.args };
    if (!opts.resume) this.log.info({ command: spec.command, args: spec.args, ...wired, cwd: spec.cwd, pid: this.pty.pid }, 'job started');
    if (launch.problem) this.log.warn({ problem: launch.problem }, 'agent signals');
    if (opts.resume) this.resume(opts.resume.point);
    else this.watchdog.start();
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
    if (opts.answerQueries !== false) this.screenState.onReply((reply) => this.replies.reply(reply));
    this.procs.start(opts.procSampleMs ?? 1_000);
    // An agent's tool calls come from its transcript; the event file too would count each call twice.
    if (!opts.agent) await attachEventFile(opts.paths.events, this.sources);
    if (opts.agent) this.agents.attach(opts.agent.kind, opts.agent.profile, opts.agent.resumeFrom ?? null);
    if (opts.agentKind && opts.agentKind !== 'generic') await attachAgentSignals(opts.agentKind, launch, spec, opts.paths, this.pty.pid, this.sources);
    this.timer.arm();
    // Not awaited: the version is a hint and must neither delay nor fail the start.
    if (opts.agentKind) void this.agents.checkCoverage(opts.agentKind);
  }

  /** An adopted job: the watchdog goes on from the board's state, the screen from the output the PTY host kept. */
  private resume(point: ResumePoint): void {
    this.watchdog.resume(point);
    // What the block was paged for: show's prompt, the web's buttons, on_unanswered's wait go on from it.
    const paged = point.action;
    if (paged) {
      this.prompt.event({ kind: 'action', action: paged });
      this.persons.paged(paged);
    }
    this.log.info({ pid: this.pty.pid, state: point.state, reason: point.reason, replayed: this.replay?.length ?? 0 }, 'job adopted from the PTY host');
    // Straight to the screen, not through the sinks: the host recorded it, and it is not new activity.
    if (this.replay?.length) this.feed.push(this.replay);
  }

  private diskProblem(file: string, e: Error): void {
    if (this.diskProblems.has(file)) return;
    this.diskProblems.add(file);
    this.emit({ kind: 'disk', file, error: e });
  }

  private applyBundle(b: RuleBundle): void {
    this.watchdog.setRules(b.rules);
    this.responder.update(b.rules.risks, b.policy);
    this.log.info({ prompts: b.rules.prompts.length, policy: b.policy.file }, 'rules and policy reloaded');
  }

  emit(e: JobEvent): void {
    this.events.fire(e);
  }

  private marker(label: string): void {
    this.emit({ kind: 'marker', t: this.clock.now(), label });
  }

  private observe(signal: Parameters<Watchdog['observe']>[0]): void {
    // Once nightshift decided to stop the job, what it prints while dying (a ^C echo)
    // is not activity: it must not end an episode or page anew. The recording keeps it.
    if (this.host.stopCause() !== undefined) return;
    this.watchdog.observe(signal);
    if (signal.kind === 'person') this.persons.present();
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
}

const iso = (t: number) => new Date(t).toISOString();

/** Events before the sinks exist are the disk problems of the files they write: a handful at most. */
const EARLY_EVENTS = 64;
