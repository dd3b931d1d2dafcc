/**
 * The watchdog: turns signals (screen, output, tool calls, process activity,
 * exit) into task-state transitions and actions. Pure and clock-injected: it
 * never reads the wall clock or sets timers; the host asks nextDeadline()
 * and calls tick() then, in real or virtual time.
 */
import type { Clock } from './clock.js';
import { bottomText, type ScreenSnapshot } from './screen-snapshot.js';
import { withoutReplyEchoes } from './reply-echo.js';
import type { Reason, TaskState, Transition } from './task-state.js';
import { NO_RESPONDER, promptAction } from './actions.js';
import { Progress } from './progress.js';
import { agentStateDetail, type AgentState } from './agent-state.js';
import { AgentWait } from './agent-wait.js';
import { AnswerCheck } from './answer-check.js';
import { ScreenAsks, type Candidate } from './screen-asks.js';
import { Verdicts, type ResumePoint } from './verdicts.js';
import { guardedClass, NEVER_ANSWERED, programKind, waitKind, waitMs, waitVerdict, type TtyMode } from './input-wait.js';
import { DEFAULT_WATCHDOG, PARKED_MS, type Action, type Signal, type WatchdogConfig, type WatchdogListener, type WatchdogOptions, type ResponderDecision, type WatchdogRules } from './watchdog-types.js';

export type { ResumePoint } from './verdicts.js';

export class Watchdog {
  private readonly v: Verdicts;
  private readonly progress = new Progress();
  private readonly asks = new ScreenAsks();
  private readonly answers: AnswerCheck;
  private screen: ScreenSnapshot | undefined;
  /** What the agent said about itself (agent-wait.ts). */
  private readonly agent = new AgentWait();
  private foreground: string | null = null;
  /** The file an editor or pager in the foreground has open. */
  private foregroundFile: string | undefined;
  private ttyMode: TtyMode | undefined;

  constructor(
    private rules: WatchdogRules,
    private readonly clock: Clock,
    readonly config: WatchdogConfig = DEFAULT_WATCHDOG,
    options: WatchdogOptions = {},
  ) {
    this.v = new Verdicts(clock.now());
    this.answers = new AnswerCheck(options.responder ?? NO_RESPONDER, options.env ?? {}, config.verifyMs);
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
        this.foreground = signal.program;
        this.foregroundFile = undefined;
        break;
      case 'foreground-file':
        this.foregroundFile = signal.file;
        break;
      case 'tty-read':
        this.asks.readingTty = signal.reading;
        break;
      case 'tty-mode':
        this.ttyMode = { canonical: signal.canonical, echo: signal.echo };
        break;
      case 'agent':
        this.onAgent(signal.signal, now);
        break;
      case 'probe':
        this.v.probe(signal.probe, signal.text, now, this.screen?.rows ?? []);
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
    if (this.v.state === 'done' || this.v.state === 'queued') return undefined;
    const now = this.clock.now();
    const { candidate, dialog } = this.asks;
    const due: number[] = [];
    if (candidate && !this.v.blockedOn(candidate.key)) due.push(candidate.since + this.settleFor(candidate));
    if (dialog && !this.v.blockedOn(dialog.key)) due.push(dialog.since + this.config.settleMs);
    if (this.asks.parked && this.v.state === 'running') due.push(this.parkedDue(this.asks.parked));
    if (this.answers.due !== undefined) due.push(this.answers.due);
    const waitDue = this.waitDue();
    if (waitDue !== undefined) due.push(waitDue);
    const agentDue = this.v.state === 'running' && !candidate ? this.agent.deadline(this.progress.stillness(this.config.settleMs)) : undefined;
    if (agentDue !== undefined) due.push(agentDue);
    if (this.v.state === 'running') {
      const quietDue = this.progress.lastNewScreen + this.config.screenQuietMs;
      due.push(quietDue);
      if (!this.progress.somethingMoves()) due.push(Math.max(quietDue, this.hangDeadline()));
    }
    const future = due.filter((d) => d > now);
    return future.length ? Math.min(...future) : undefined;
  }

  private onScreen(seen: ScreenSnapshot, now: number): void {
    // A terminal's reply echoed after a question must not hide it from the rules.
    const snap = withoutReplyEchoes(seen);
    const changed = snap.fingerprint !== this.screen?.fingerprint;
    this.screen = snap;
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

  /** When a watch mode counts as parked: its footer and the whole screen still for PARKED_MS. */
  private parkedDue(p: Candidate): number {
    return Math.max(p.since, this.progress.lastNewScreen) + PARKED_MS;
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
    this.checkAnswerTookEffect(now);
    const c = this.asks.candidate;
    if (c && now - c.since >= this.settleFor(c)) {
      if (!this.v.blockedOn(c.key)) this.blockOnPrompt(c, now);
      return;
    }
    if (this.v.blockedFor('prompt')) this.promptCleared(now);
    const running = this.v.state === 'running';
    if (running && !c && this.agent.due(now, this.progress.stillness(this.config.settleMs))) {
      const detail = agentStateDetail(this.agent.signal!);
      this.block({ code: 'agent-waiting', class: 'unknown', detail }, bottomText(this.screen?.rows ?? []), this.agent.since!, now, `agent:${detail}`);
      return;
    }
    const d = this.asks.dialog;
    // A dialog waits for a key; a program that still works (CPU, disk, a finished tool call) is drawing, not asking.
    if (d && running && now - d.since >= this.config.settleMs && !this.progress.procBusy && !this.progress.toolFinishedSince(d.since)) {
      this.block({ code: 'unknown-dialog', class: programKind(this.foreground) ?? 'unknown', detail: d.match.kind }, d.match.text, d.since, now, d.key);
      return;
    }
    const wait = this.waitDue();
    if (wait !== undefined && now >= wait) {
      this.blockOnWait(now);
      return;
    }
    const p = this.asks.parked;
    // Parked, not drawing: nothing new on screen, an idle tree, no tool call since the footer came.
    if (p && running && now >= this.parkedDue(p) && !this.progress.procBusy && !this.progress.toolFinishedSince(p.since)) {
      const reason: Reason = { code: 'parked', rule: p.match.rule.id, detail: p.match.rule.programs[0] ?? p.match.rule.id };
      this.block(reason, p.match.text, p.since, now, p.key);
      return;
    }
    if (running && now - this.progress.lastNewScreen >= this.config.screenQuietMs) this.inspectQuiet(now);
  }

  /**
   * When the foreground program's wait for a person is sure: it reads the
   * terminal (or is an editor or pager), nothing in the tree works, and
   * the screen showed nothing new for the wait's time. A rule's prompt or a
   * dialog's structure, when there is one, decides instead.
   */
  private waitDue(): number | undefined {
    if (this.v.state !== 'running' || this.asks.candidate || this.asks.dialog) return undefined;
    const kind = waitKind(this.foreground, this.asks.readingTty, this.ttyMode);
    // An editor's own writes (vim's swap file, 4 s after the last key) are not work someone waits for.
    if (!kind || (this.progress.procBusy && kind !== 'editor' && kind !== 'pager')) return undefined;
    return this.progress.lastNewScreen + waitMs(kind);
  }

  private blockOnWait(now: number): void {
    const kind = waitKind(this.foreground, this.asks.readingTty, this.ttyMode)!;
    const w = waitVerdict(kind, this.foreground, this.foregroundFile, bottomText(this.screen?.rows ?? []) ?? '', this.ttyMode);
    this.block({ code: 'unknown-prompt', class: w.class, detail: w.detail }, w.prompt, this.progress.lastNewScreen, now, `wait:${kind}`);
  }

  /** The screen has been quiet for screenQuietMs: decide between question, busy, and hung. */
  private inspectQuiet(now: number): void {
    const question = this.asks.question(this.screen, this.rules.questions);
    const { tools, lastNewScreen, procBusy } = this.progress;
    const toolDuringQuiet = tools.inFlight > 0 || (tools.lastEventAt ?? -Infinity) >= lastNewScreen;
    // A program waiting for an answer reads the terminal; it does not burn CPU.
    if (question && !toolDuringQuiet && !procBusy) {
      // A password's or a host key's question says what it asks, whichever check found it.
      const cls = guardedClass(question.text, this.asks.readingTty, this.ttyMode) ?? 'unknown';
      this.block({ code: 'unknown-prompt', class: cls, detail: `question:${question.rule.id}` }, question.text, lastNewScreen, now);
    } else if (tools.inFlight > 0) {
      this.v.restate({ code: 'quiet-tool-in-flight', detail: tools.inFlightNames().join(',') }, now);
    } else if (procBusy) {
      this.v.restate({ code: 'quiet-child-busy' }, now);
    } else if (now >= this.hangDeadline() && !this.asks.parked) {
      // A watch mode's footer says more than a hang does: the parked verdict comes at its own time.
      this.block({ code: 'hung', ...(this.progress.cycling() ? { detail: 'cycling-screen' } : {}) }, undefined, this.progress.lastProgress(), now);
    }
  }

  private settleFor(c: Candidate): number {
    return this.asks.settleFor(c, this.config.settleMs);
  }

  private hangDeadline(): number {
    return this.progress.lastProgress() + this.config.toolGapMs;
  }

  /** An automatic answer whose prompt is still there after verifyMs goes to a person; it is never sent twice. */
  private checkAnswerTookEffect(now: number): void {
    const c = this.asks.candidate;
    if (!this.answers.failed(c?.key, now) || !c) return;
    const why = `the prompt was still on screen ${this.config.verifyMs / 1_000}s after the answer`;
    this.v.act(promptAction(this.screen, 'escalate', c.match, c.since, now, { layer: 'act', why, class: this.v.reason.class ?? c.match.rule.class }));
  }

  private blockOnPrompt(c: Candidate, now: number): void {
    const decision = this.guarded(c, now);
    this.v.blockOn({ code: 'prompt', key: c.key, since: c.since, at: now }, { code: 'prompt', rule: c.match.rule.id, class: decision.class }, now);
    this.v.act(promptAction(this.screen, decision.kind, c.match, c.since, now, decision));
  }

  /**
   * The responder's decision, unless the prompt asks for a secret or for
   * trust in a host key: those go to a person whatever the rule's class.
   */
  private guarded(c: Candidate, now: number): ResponderDecision {
    const cls = guardedClass(c.match.text, this.asks.readingTty, this.ttyMode) ?? (NEVER_ANSWERED.has(c.match.rule.class) ? c.match.rule.class : undefined);
    if (!cls) return this.answers.decide(c, this.screen!, this.foreground, now);
    return { kind: 'escalate', class: cls, layer: 'classify', why: `a ${cls} prompt is never answered automatically`, keys: [], command: null, packages: [] };
  }

  private block(reason: Reason, prompt: string | undefined, since: number, now: number, key = reason.code): void {
    this.v.block(reason, prompt, since, now, this.screen?.rows ?? [], key);
  }
}
