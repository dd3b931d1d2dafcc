/**
 * The watchdog: turns signals (screen, output, tool calls, process activity,
 * exit) into task-state transitions and actions. Pure and clock-injected: it
 * never reads the wall clock or sets timers; the host asks nextDeadline()
 * and calls tick() then, in real or virtual time.
 */
import type { Clock } from './clock.js';
import { bottomText, type ScreenSnapshot } from './screen-snapshot.js';
import { ReplyEchoFilter } from './reply-echo.js';
import type { Reason, TaskState, Transition } from './task-state.js';
import { NO_RESPONDER } from './actions.js';
import { Progress } from './progress.js';
import { agentStateDetail, type AgentState } from './agent-state.js';
import { AgentWait } from './agent-wait.js';
import { AnswerCheck } from './answer-check.js';
import { ScreenAsks } from './screen-asks.js';
import { Verdicts, type ResumePoint } from './verdicts.js';
import { programKind } from './input-wait.js';
import { DEFAULT_WATCHDOG, type Action, type Signal, type WatchdogConfig, type WatchdogListener, type WatchdogOptions, type WatchdogRules } from './watchdog-types.js';
import { Deadlines, type Seen } from './watchdog-deadlines.js';
import { Blocks } from './watchdog-blocks.js';

export type { ResumePoint } from './verdicts.js';

export class Watchdog {
  private readonly v: Verdicts;
  private readonly progress = new Progress();
  private readonly asks = new ScreenAsks();
  private readonly echoes = new ReplyEchoFilter();
  private readonly answers: AnswerCheck;
  private readonly seen: Seen = { screen: undefined, foreground: null, foregroundFile: undefined, ttyMode: undefined };
  /** What the agent said about itself (agent-wait.ts). */
  private readonly agent = new AgentWait();
  private readonly due: Deadlines;
  private readonly blocks: Blocks;

  constructor(
    private rules: WatchdogRules,
    private readonly clock: Clock,
    readonly config: WatchdogConfig = DEFAULT_WATCHDOG,
    options: WatchdogOptions = {},
  ) {
    this.v = new Verdicts(clock.now());
    this.answers = new AnswerCheck(options.responder ?? NO_RESPONDER, options.env ?? {}, config.verifyMs);
    const parts = { v: this.v, progress: this.progress, asks: this.asks, answers: this.answers, agent: this.agent, config, seen: this.seen };
    this.due = new Deadlines(parts, clock);
    this.blocks = new Blocks(parts, this.due);
  }

  listen(l: WatchdogListener): void {
    this.v.listen(l);
  }

  get state(): TaskState {
    return this.v.state;
  }
  get reason(): Reason {
    return this.v.reason;
  }
  get history(): readonly Transition[] {
    return this.v.history;
  }
  get actions(): readonly Action[] {
    return this.v.actions;
  }

  /** Rules can be swapped live (reload); the current candidate is re-checked on the next screen. */
  setRules(rules: WatchdogRules): void {
    this.rules = rules;
  }

  /** What the watchdog currently believes, for `show` and logs. */
  status() {
    const c = this.asks.candidate;
    return {
      state: this.v.state,
      reason: this.v.reason,
      lastScreenChange: this.progress.lastScreenChange,
      lastNewScreen: this.progress.lastNewScreen,
      lastOutput: this.progress.lastOutputAt ?? null,
      lastToolEvent: this.progress.tools.lastEventAt ?? null,
      toolsInFlight: this.progress.tools.inFlight,
      procBusy: this.progress.procBusy,
      lastProgress: this.progress.lastProgress(),
      /** What the board shows as ACTIVE: across a takeover, the progress known then. */
      reportedProgress: this.progress.reportedProgress(),
      promptCandidate: c ? { rule: c.match.rule.id, since: c.since } : null,
    };
  }

  start(): void {
    const now = this.clock.now();
    this.progress.start(now);
    this.v.move('running', { code: 'started' }, now);
  }

  /**
   * Takes over a job another daemon supervised (adopted from the PTY host
   * after a restart), in the state the board has, silently: the board, the
   * pages and the evidence have it already. A block stays the same episode
   * (no new action, no new page) if the first screen still shows it.
   */
  resume(r: ResumePoint): void {
    const now = this.clock.now();
    this.progress.resume(Math.min(r.lastProgress ?? now, now), now);
    this.v.resume(r, Math.min(r.since, now));
  }

  observe(signal: Signal): void {
    if (this.v.state === 'done') return;
    const now = this.clock.now();
    switch (signal.kind) {
      case 'output':
        this.progress.lastOutputAt = now;
        break;
      case 'screen':
        this.onScreen(signal.snapshot, now);
        break;
      case 'tool':
        this.progress.tool(signal.event, now);
        // An agent asks before it runs: its transcript shows the call (a start) while the permission dialog waits.
        if (signal.event.phase === 'finish' || !this.v.waitsForPerson()) this.wake('tool', now);
        break;
      case 'proc':
        this.onProc(signal.busy, now);
        break;
      case 'foreground':
        this.seen.foreground = signal.program;
        this.seen.foregroundFile = undefined;
        break;
      case 'foreground-file':
        this.seen.foregroundFile = signal.file;
        break;
      case 'tty-read':
        this.asks.readingTty = signal.reading;
        break;
      case 'tty-mode':
        this.seen.ttyMode = { canonical: signal.canonical, echo: signal.echo };
        break;
      case 'agent':
        this.onAgent(signal.signal, now);
        break;
      case 'probe':
        this.v.probe(signal.probe, signal.text, now, this.seen.screen?.rows ?? []);
        break;
      case 'person':
        // A cancel ends the job; it does not let it go on.
        if (signal.action !== 'cancel') this.v.personActed(signal.by, now);
        break;
      case 'exit':
        this.onExit(signal, Math.max(signal.at ?? now, this.v.history.at(-1)!.t));
        return;
    }
    this.evaluate(now);
  }

  /** Re-evaluates timers at the clock's current time. */
  tick(): void {
    if (this.v.state !== 'done') this.evaluate(this.clock.now());
  }

  /** The next time (ms) at which tick() could change something; undefined if none. */
  nextDeadline(): number | undefined {
    return this.due.next();
  }

  private onScreen(seen: ScreenSnapshot, now: number): void {
    // A terminal's reply echoed after a question must not hide it from the rules.
    const snap = this.echoes.apply(seen);
    const changed = snap.fingerprint !== this.seen.screen?.fingerprint;
    this.seen.screen = snap;
    const resuming = this.v.episode?.resuming === true;
    // The screen rebuilt after a restart is what was there, not something new.
    const fresh = changed && this.progress.screenChanged(snap.fingerprint, now) && !resuming;
    const m = this.asks.prompt(snap, this.rules.prompts, now);
    if (resuming) this.asks.claim(this.v.episode!, m, snap, this.v.reason.rule);
    this.onDialog(m ? undefined : snap, now);
    this.onParked(m ? undefined : snap, now);
    // A blink or a spinner frame on a hung or questioning screen is not activity; something new is.
    if (fresh && this.v.state === 'blocked' && this.wokenByScreen(now)) this.wake('screen', now);
    // A quiet spell is over once the screen moves again: the board must not say "quiet" of a job that prints.
    if (fresh && this.v.state === 'running' && this.v.reason.code.startsWith('quiet-')) this.v.restate({ code: 'screen' }, now);
  }

  /**
   * Which blocks something new on screen ends: a known prompt and a dialog
   * end when they leave the screen; an agent's "waiting" ends when it says it
   * works again, or with new content once its dialog had time to be drawn
   * (a rejected permission fires no hook, and would otherwise stay blocked).
   */
  private wokenByScreen(now: number): boolean {
    const code = this.v.reason.code;
    if (code === 'prompt' || code === 'unknown-dialog' || code === 'parked' || this.v.probeBlocked()) return false;
    return code !== 'agent-waiting' || now - (this.v.episode?.at ?? now) >= this.config.settleMs;
  }

  /** Only an agent-waiting block ends on the agent's word; a hang ends when the agent works again. */
  private onAgent(s: AgentState, now: number): void {
    this.agent.say(s, now);
    if (s.state === 'working') this.progress.agentWorkedAt = now;
    if (s.state === 'waiting') return;
    if (this.v.blockedFor('agent-waiting') || (this.v.blockedFor('hung') && s.state === 'working')) {
      this.v.unblock({ code: 'agent-working', detail: agentStateDetail(s) }, now);
    }
  }

  /** Known rules win: a dialog is looked for only when no rule matches. It ends when its structure leaves the screen. */
  private onDialog(snap: ScreenSnapshot | undefined, now: number): void {
    this.asks.seeDialog(snap, now);
    if (this.v.blockedFor('unknown-dialog') && !this.v.blockedOn(this.asks.dialog?.key ?? '')) this.promptCleared(now);
  }

  /** A parked job goes on when its watch mode leaves the screen: it works again (a re-run), or a person pressed a key. */
  private onParked(snap: ScreenSnapshot | undefined, now: number): void {
    this.asks.seeParked(snap, this.rules.parked, now);
    if (this.v.blockedFor('parked') && !this.v.blockedOn(this.asks.parked?.key ?? '')) this.v.unblock({ code: 'screen' }, now);
  }

  private onProc(busy: boolean, now: number): void {
    this.progress.proc(busy, now);
    if (busy && this.v.blockedFor('hung')) this.wake('proc', now);
  }

  /** A process that exits on its own while a probe's verdict stands ends escalated: the verdict outlives it. */
  private onExit(s: Extract<Signal, { kind: 'exit' }>, now: number): void {
    const held = s.stoppedFor === undefined ? this.v.heldVerdict : undefined;
    const code = s.stoppedFor ?? (held ? 'escalated' : s.signal ? 'signal' : 'exit');
    const detail = s.detail ?? (held && `it exited on its own while blocked on ${held.code}${held.detail ? ` (${held.detail})` : ''}`);
    const reason: Reason = { code, exitCode: s.exitCode, signal: s.signal, ...(detail ? { detail } : {}) };
    this.asks.candidate = undefined;
    this.v.move('done', reason, now);
  }

  /**
   * The dialog left the screen: answered. An agent's "waiting" said while it
   * was up was about it (Claude's hook fires as its dialog is drawn, and a
   * rejection fires nothing), so it ends with it rather than blocking anew.
   */
  private promptCleared(now: number): void {
    this.agent.clear();
    this.v.unblock({ code: 'prompt-cleared' }, now);
  }

  /** Activity ends an unknown-prompt or hung episode; a known prompt ends only when it leaves the screen. */
  private wake(code: 'screen' | 'tool' | 'proc', now: number): void {
    if (this.v.state !== 'blocked' || this.v.reason.code === 'prompt' || this.v.probeBlocked()) return;
    this.agent.clear();
    this.v.unblock({ code }, now);
  }

  private evaluate(now: number): void {
    // A resumed block waits for its first screen: without one, every prompt looks gone.
    if (this.v.episode?.resuming) return;
    this.blocks.checkAnswerTookEffect(now);
    const c = this.asks.candidate;
    if (c && now - c.since >= this.due.settleFor(c)) {
      if (!this.v.blockedOn(c.key)) this.blocks.blockOnPrompt(c, now);
      return;
    }
    if (this.v.blockedFor('prompt')) this.promptCleared(now);
    const running = this.v.state === 'running';
    if (running && !c && this.agent.due(now, this.progress.stillness(this.config.settleMs))) {
      const detail = agentStateDetail(this.agent.signal!);
      this.blocks.block({ code: 'agent-waiting', class: 'unknown', detail }, bottomText(this.seen.screen?.rows ?? []), this.agent.since!, now, `agent:${detail}`);
      return;
    }
    const d = this.asks.dialog;
    // A dialog waits for a key; a program that still works (CPU, disk, a finished tool call) is drawing, not asking.
    if (d && running && now - d.since >= this.config.settleMs && !this.progress.procBusy && !this.progress.toolFinishedSince(d.since)) {
      this.blocks.block({ code: 'unknown-dialog', class: programKind(this.seen.foreground) ?? 'unknown', detail: d.match.kind }, d.match.text, d.since, now, d.key);
      return;
    }
    const wait = this.due.waitDue();
    if (wait !== undefined && now >= wait) {
      this.blocks.blockOnWait(now);
      return;
    }
    const p = this.asks.parked;
    // Parked, not drawing: nothing new on screen, an idle tree, no tool call since the footer came.
    if (p && running && now >= this.due.parkedDue(p) && !this.progress.procBusy && !this.progress.toolFinishedSince(p.since)) {
      const reason: Reason = { code: 'parked', rule: p.match.rule.id, detail: p.match.rule.programs[0] ?? p.match.rule.id };
      this.blocks.block(reason, p.match.text, p.since, now, p.key);
      return;
    }
    if (running && now - this.progress.lastNewScreen >= this.config.screenQuietMs) this.blocks.inspectQuiet(this.rules.questions, now);
  }
}
