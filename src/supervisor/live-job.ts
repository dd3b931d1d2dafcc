/**
 * One supervised job, live: a real PTY feeding a headless screen, the job's
 * recording, its tool-event file and process sampler, all driving the same
 * pure Watchdog the drills use, on the system clock.
 */
import type { Clock } from '../core/clock.js';
import type { Transition } from '../core/task-state.js';
import { toolMarker, type ToolEvent, type ToolEventSource } from '../core/tool-events.js';
import { Watchdog } from '../core/watchdog.js';
import type { Action, WatchdogConfig } from '../core/watchdog-types.js';
import { Responder } from '../responder/responder.js';
import type { RuleBundle } from '../rules/bundle.js';
import { RuleReloader } from './rule-reloader.js';
import type { AgentKind } from '../core/agent-events.js';
import type { ProbeProfile } from '../probes/index.js';
import { JobAgent } from './job-agent.js';
import { castHeader } from './cast-header.js';
import { EventFileSource } from '../events/event-file.js';
import { PtyHost, type PtyExit } from '../pty/host.js';
import { keySequence } from '../pty/keys.js';
import { InputError } from '../util/errors.js';
import { CastWriter } from '../record/cast-writer.js';
import { Screen } from '../screen/screen.js';
import { DeadlineTimer } from './deadline-timer.js';
import { EvidenceLog, shellExitCode } from './evidence.js';
import type { JobPaths } from './job-dir.js';
import { jobLogger, plain, type Logger } from './logger.js';
import { ProcSampler } from './proc-sampler.js';
import { ScreenFeed } from './screen-feed.js';
import { JobSummary } from './summary.js';
import { SystemClock } from './system-clock.js';

export interface JobSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  readonly name?: string;
}

export interface JobOptions {
  readonly paths: JobPaths;
  readonly bundle: RuleBundle;
  /** Watch these and reload rules and policy when they change. */
  readonly reload?: { readonly rulesPath: string; readonly policyPath: string | null };
  readonly onReloadProblem?: (problem: string) => void;
  readonly config: WatchdogConfig;
  readonly procSampleMs?: number;
  readonly clock?: Clock;
  readonly onTransition?: (t: Transition) => void;
  readonly onAction?: (a: Action) => void;
  readonly onOutput?: (data: string) => void;
  /**
   * Answer the program's terminal queries (cursor position, device
   * attributes) from the headless screen. Off when a real terminal mirrors
   * the output and answers them itself, or the program would get two replies.
   */
  readonly answerQueries?: boolean;
  /** The agent this job runs (transcript, probes); absent = a plain program. */
  readonly agent?: { readonly kind: AgentKind; readonly profile: ProbeProfile };
  /** The job's Redactor (src/notify/secrets.ts): applied to its log, evidence and summary. The recording stays raw. */
  readonly redact?: (text: string) => string;
}

export class LiveJob {
  readonly pty: PtyHost;
  readonly watchdog: Watchdog;
  readonly screen: Screen;
  readonly log: Logger;
  private readonly clock: Clock;
  private readonly cast: CastWriter;
  private readonly feed: ScreenFeed;
  private readonly timer: DeadlineTimer;
  private readonly sampler: ProcSampler;
  private readonly evidence: EvidenceLog;
  private readonly summary: JobSummary;
  private events: ToolEventSource | undefined;
  private readonly outputListeners = new Set<(data: string) => void>();
  private reloader: RuleReloader | undefined;
  private readonly responder: Responder;
  private stopCause: string | undefined;
  private sampledCandidate: string | undefined;
  private agent: JobAgent | undefined;
  private readonly startedAt: number;
  readonly finished: Promise<PtyExit>;

  private constructor(
    readonly spec: JobSpec,
    private readonly opts: JobOptions,
  ) {
    const p = opts.paths;
    this.clock = opts.clock ?? new SystemClock();
    const env = { ...spec.env, NIGHTSHIFT_EVENTS: p.events, NIGHTSHIFT_JOB_ID: p.id, NIGHTSHIFT_JOB_DIR: p.dir };
    this.pty = PtyHost.spawn({ command: spec.command, args: [...spec.args], cwd: spec.cwd, env, cols: spec.cols, rows: spec.rows });
    const start = this.clock.now();
    this.startedAt = start;
    this.log = jobLogger(p.log, p.id, opts.redact);
    this.cast = CastWriter.open(p.recording, castHeader(spec, start), start);
    this.screen = new Screen(spec.cols, spec.rows);
    this.responder = new Responder(opts.bundle.rules.risks, opts.bundle.policy);
    this.watchdog = new Watchdog(opts.bundle.rules, this.clock, opts.config, { responder: this.responder, env: spec.env });
    this.timer = new DeadlineTimer(this.watchdog, this.clock);
    this.feed = new ScreenFeed(this.screen, this.clock, (snapshot) => this.observe({ kind: 'screen', snapshot }));
    this.evidence = new EvidenceLog(p.evidence, p.id, opts.redact);
    this.summary = new JobSummary(p, spec, start, opts.redact);
    this.sampler = new ProcSampler(this.pty.pid, this.clock, {
      busy: (busy) => this.onProc(busy),
      foreground: (program) => this.onForeground(program),
    });
    this.watchdog.listen({ transition: (t) => this.onTransition(t), action: (a) => this.onAction(a) });
    this.finished = this.pty.exited.then((e) => this.onExit(e));
  }

  /** Spawns the job; bad input (cwd, command) throws InputError before anything is written. */
  static async start(spec: JobSpec, opts: JobOptions): Promise<LiveJob> {
    const job = new LiveJob(spec, opts);
    job.log.info({ command: spec.command, args: spec.args, cwd: spec.cwd, pid: job.pty.pid }, 'job started');
    job.watchdog.start();
    job.pty.onData((data) => job.onData(data));
    if (opts.answerQueries !== false) job.screen.onReply((reply) => job.pty.write(reply));
    job.sampler.start(opts.procSampleMs ?? 1_000);
    // An agent's tool calls come from its transcript; the event file too would count each call twice.
    if (!opts.agent) await job.attachEvents();
    if (opts.reload) await job.watchRules(opts.reload.rulesPath, opts.reload.policyPath);
    if (opts.agent) job.attachAgent(opts.agent.kind, opts.agent.profile);
    job.timer.arm();
    return job;
  }

  get id(): string {
    return this.opts.paths.id;
  }

  /** Finished its task: exit 0, or a turn that ended with nothing held against it. */
  get succeeded(): boolean {
    const r = this.watchdog.reason;
    return (r.code === 'exit' && r.exitCode === 0) || r.code === 'turn-ended';
  }

  /** Steps, tokens, final answer and verification, when the job runs an agent. */
  agentSummary() {
    return this.agent?.summary();
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.cast.resize(this.clock.now(), cols, rows);
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
      this.log.warn({ cause }, 'stopping job');
      // Agent TUIs at their input box want Ctrl-C twice; a shell job is gone after the first.
      const ctrlC = () => this.pty.write('\x03');
      const steps: Array<() => void> = [ctrlC, () => this.pty.kill('SIGTERM'), () => this.pty.kill('SIGKILL')];
      setTimeout(() => this.pty.running && ctrlC(), 500).unref();
      const next = () => {
        const step = steps.shift();
        if (!step || !this.pty.running) return;
        step();
        setTimeout(next, graceMs).unref();
      };
      next();
    }
    return this.finished;
  }

  /** Everything the job prints from now on (attach); returns the unsubscribe. */
  watchOutput(listener: (data: string) => void): () => void {
    this.outputListeners.add(listener);
    return () => this.outputListeners.delete(listener);
  }

  /**
   * A person answers the prompt the job is blocked on. Keys are recorded as
   * evidence (who, what) before they are sent. A line prompt whose rule
   * answers with Enter gets the text followed by Enter; a dialog gets the key.
   */
  async answer(text: string, who: string): Promise<readonly string[]> {
    if (this.watchdog.state !== 'blocked') {
      throw new InputError(`job ${this.id} is not blocked (it is ${this.watchdog.state}); nothing to answer`);
    }
    const rule = this.watchdog.reason.rule ? this.opts.bundle.rules.prompts.find((r) => r.id === this.watchdog.reason.rule) : undefined;
    const enter = rule ? rule.answer.at(-1)?.toLowerCase() === 'enter' : true;
    const keys = enter ? [text, 'enter'] : [text];
    const now = this.clock.now();
    this.evidence.human(iso(now), who, keys, text);
    this.log.info({ who, keys }, 'answered by a person');
    this.cast.input(now, text + (enter ? '\r' : ''));
    await this.pty.sendText(text, { enter });
    return keys;
  }

  /** Text typed on the job's behalf (Enter after it), recorded as input. */
  async sendText(text: string, enter = true): Promise<void> {
    this.cast.input(this.clock.now(), text + (enter ? '\r' : ''));
    await this.pty.sendText(text, { enter });
  }

  /** A named key (enter, escape, ctrl-c …), recorded as input. */
  sendKey(name: string): void {
    const seq = keySequence(name);
    this.cast.input(this.clock.now(), seq);
    this.pty.write(seq);
  }

  /** Keystrokes from the person at the terminal; recorded as input. */
  input(data: string): void {
    this.cast.input(this.clock.now(), data);
    this.pty.write(data);
  }

  private attachAgent(kind: AgentKind, profile: ProbeProfile): void {
    const job = this;
    this.agent = new JobAgent(
      {
        id: this.id,
        dir: this.opts.paths.dir,
        name: this.spec.name ?? null,
        argv: [this.spec.command, ...this.spec.args],
        cwd: this.spec.cwd,
        startedAt: this.startedAt,
        now: () => this.clock.now(),
        marker: (label) => this.cast.marker(this.clock.now(), label),
        toolEvent: (e) => this.onTool(e),
        action: (a) => this.onAction(a),
        verdict: (record) => this.evidence.record({ ...record, time: iso(this.clock.now()) }),
        sendText: (text) => this.sendText(text),
        stop: (cause) => void this.stop(cause),
        state: () => job.watchdog.state,
        screen: () => this.screen.snapshot().rows,
        log: (msg, fields) => this.log.info(fields ?? {}, msg),
      },
      kind,
      profile,
      this.spec.env,
      this.pty.pid,
    );
  }

  private async watchRules(rulesPath: string, policyPath: string | null): Promise<void> {
    this.reloader = new RuleReloader(rulesPath, policyPath, {
      applied: (b) => {
        this.watchdog.setRules(b.rules);
        this.responder.update(b.rules.risks, b.policy);
        this.log.info({ prompts: b.rules.prompts.length, policy: b.policy.file }, 'rules and policy reloaded');
      },
      rejected: (problem) => {
        this.log.error({ problem }, 'rules or policy edit rejected; the last good ones stay in force');
        this.opts.onReloadProblem?.(problem);
      },
    });
    await this.reloader.start();
  }

  private async attachEvents(): Promise<void> {
    const source = await EventFileSource.open(this.opts.paths.events);
    source.onProblem((m) => this.log.warn({ problem: m }, 'bad tool event'));
    source.onEvent((e) => this.onTool(e));
    this.events = source;
  }

  private observe(signal: Parameters<Watchdog['observe']>[0]): void {
    // Once nightshift decided to stop the job, what it prints while dying (a ^C echo)
    // is not activity: it must not end an episode or page anew. The recording keeps it.
    if (this.stopCause !== undefined) return;
    this.watchdog.observe(signal);
    if (signal.kind === 'screen') this.sampleForNewPrompt();
    this.timer.arm();
  }

  private onData(data: string): void {
    this.cast.output(this.clock.now(), data);
    this.opts.onOutput?.(data);
    for (const l of this.outputListeners) l(data);
    this.observe({ kind: 'output' });
    this.feed.push(data);
  }

  private onTool(e: ToolEvent): void {
    this.cast.marker(this.clock.now(), toolMarker(e));
    this.log.info({ tool: e }, 'tool event');
    this.observe({ kind: 'tool', event: e });
  }

  /**
   * A new prompt candidate gets a fresh /proc sample before it settles, so
   * the responder's foreground check never rests on a sample older than the
   * prompt (a 1 s timer can lag under load).
   */
  private sampleForNewPrompt(): void {
    const c = this.watchdog.status().promptCandidate;
    const key = c ? `${c.rule}@${c.since}` : undefined;
    if (key !== undefined && key !== this.sampledCandidate) this.sampler.sampleNow();
    this.sampledCandidate = key;
  }

  private onForeground(program: string | null): void {
    if (program) this.cast.marker(this.clock.now(), `fg:${program}`);
    this.observe({ kind: 'foreground', program });
  }

  private onProc(busy: boolean): void {
    this.cast.marker(this.clock.now(), busy ? 'proc:busy' : 'proc:idle');
    this.observe({ kind: 'proc', busy });
  }

  private onTransition(t: Transition): void {
    this.log.info({ from: t.from, to: t.to, reason: t.reason }, `state ${t.to} (${t.reason.code})`);
    this.evidence.transition(t, iso);
    this.summary.transition(t);
    this.opts.onTransition?.(t);
  }

  private onAction(a: Action): void {
    this.log.warn({ action: a.kind, rule: a.rule, class: a.class, prompt: a.prompt && plain(a.prompt) }, a.text);
    // Evidence first, synchronously: the record exists before a key is sent.
    this.evidence.action(a, iso);
    if (a.kind === 'answer' && a.keys?.length) {
      const now = this.clock.now();
      this.cast.marker(now, `answer:${a.rule}`);
      this.cast.input(now, a.keys.map(keySequence).join(''));
      void this.pty.sendKeys([...a.keys]);
    }
    this.opts.onAction?.(a);
  }

  private async onExit(e: PtyExit): Promise<PtyExit> {
    await this.feed.settled();
    const now = this.clock.now();
    this.sampler.stop();
    await this.events?.close();
    await this.reloader?.close();
    await this.agent?.watch.close();
    this.cast.exit(now, shellExitCode(e));
    this.cast.close();
    this.watchdog.observe({
      kind: 'exit',
      exitCode: e.signal ? null : e.exitCode,
      signal: e.signal,
      ...(this.stopCause ? { stoppedFor: this.stopCause } : {}),
    });
    this.timer.stop();
    const reason = this.watchdog.reason;
    const success = this.succeeded;
    if (this.agent && !success) this.agent.writeCard(reason.code, reason.detail ?? null, now - this.startedAt);
    this.summary.finish(e, this.screen.text(), this.agent?.summary());
    this.log.info({ exitCode: e.exitCode, signal: e.signal }, 'job ended');
    this.log.flush();
    this.feed.dispose();
    this.screen.dispose();
    this.pty.dispose();
    return e;
  }
}

const iso = (t: number) => new Date(t).toISOString();
