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
import { REGISTRY_ENV_NAMES } from '../responder/policy.js';
import type { RuleBundle } from '../rules/bundle.js';
import { RuleReloader } from './rule-reloader.js';
import { EventFileSource } from '../events/event-file.js';
import { PtyHost, type PtyExit } from '../pty/host.js';
import { keySequence } from '../pty/keys.js';
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
  private reloader: RuleReloader | undefined;
  private readonly responder: Responder;
  private stopCause: string | undefined;
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
    this.log = jobLogger(p.log, p.id);
    this.cast = CastWriter.open(p.recording, castHeader(spec, start), start);
    this.screen = new Screen(spec.cols, spec.rows);
    this.responder = new Responder(opts.bundle.rules.risks, opts.bundle.policy);
    this.watchdog = new Watchdog(opts.bundle.rules, this.clock, opts.config, { responder: this.responder, env: spec.env });
    this.timer = new DeadlineTimer(this.watchdog, this.clock);
    this.feed = new ScreenFeed(this.screen, this.clock, (snapshot) => this.observe({ kind: 'screen', snapshot }));
    this.evidence = new EvidenceLog(p.evidence, p.id);
    this.summary = new JobSummary(p, spec, start);
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
    await job.attachEvents();
    if (opts.reload) await job.watchRules(opts.reload.rulesPath, opts.reload.policyPath);
    job.timer.arm();
    return job;
  }

  get id(): string {
    return this.opts.paths.id;
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.cast.resize(this.clock.now(), cols, rows);
    this.feed.resize(cols, rows);
  }

  /**
   * Stops the job gracefully: interrupt, then terminate, then kill, each
   * after a grace period, until it exits. `cause` becomes its done reason.
   */
  stop(cause: string, graceMs = 3_000): Promise<PtyExit> {
    if (this.pty.running) {
      this.stopCause ??= cause;
      this.log.warn({ cause }, 'stopping job');
      const steps = ['SIGINT', 'SIGTERM', 'SIGKILL'];
      const next = () => {
        const sig = steps.shift();
        if (!sig || !this.pty.running) return;
        this.pty.kill(sig);
        setTimeout(next, graceMs).unref();
      };
      next();
    }
    return this.finished;
  }

  /** Keystrokes from the person at the terminal; recorded as input. */
  input(data: string): void {
    this.cast.input(this.clock.now(), data);
    this.pty.write(data);
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
    this.watchdog.observe(signal);
    this.timer.arm();
  }

  private onData(data: string): void {
    this.cast.output(this.clock.now(), data);
    this.opts.onOutput?.(data);
    this.observe({ kind: 'output' });
    this.feed.push(data);
  }

  private onTool(e: ToolEvent): void {
    this.cast.marker(this.clock.now(), toolMarker(e));
    this.log.info({ tool: e }, 'tool event');
    this.observe({ kind: 'tool', event: e });
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
    this.cast.exit(now, shellExitCode(e));
    this.cast.close();
    this.watchdog.observe({
      kind: 'exit',
      exitCode: e.signal ? null : e.exitCode,
      signal: e.signal,
      ...(this.stopCause ? { stoppedFor: this.stopCause } : {}),
    });
    this.timer.stop();
    this.summary.finish(e, this.screen.text());
    this.log.info({ exitCode: e.exitCode, signal: e.signal }, 'job ended');
    this.log.flush();
    this.feed.dispose();
    this.screen.dispose();
    this.pty.dispose();
    return e;
  }
}

const iso = (t: number) => new Date(t).toISOString();


function castHeader(spec: JobSpec, startMs: number) {
  return {
    width: spec.cols,
    height: spec.rows,
    timestamp: Math.floor(startMs / 1_000),
    command: [spec.command, ...spec.args].map(shellQuote).join(' '),
    ...(spec.name ? { title: spec.name } : {}),
    // Registry settings travel with the recording so a drill judges package sources as this run did.
    env: { TERM: 'xterm-256color', SHELL: spec.env.SHELL ?? '/bin/sh', ...pickEnv(spec.env, REGISTRY_ENV_NAMES) },
  };
}

/** Quotes a word for a POSIX shell, so the recorded command can be pasted back. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function pickEnv(env: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]!]));
}
