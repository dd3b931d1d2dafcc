/**
 * The watchdog: turns signals (screen, output, tool calls, process activity,
 * exit) into task-state transitions and actions. Pure and clock-injected: it
 * never reads the wall clock or sets timers; the host asks nextDeadline()
 * and calls tick() then, in real or virtual time.
 */
import type { Clock } from './clock.js';
import type { PromptMatch } from './prompt-match.js';
import { bottomText, type ScreenSnapshot } from './screen-snapshot.js';
import { PROBE_BLOCK, TaskStateMachine, type Reason, type TaskState, type Transition } from './task-state.js';
import { NO_RESPONDER, blockAction, promptAction } from './actions.js';
import { Progress } from './progress.js';
import { dialogKey, type DialogMatch } from './dialog-structure.js';
import { ScreenReadings } from './screen-reading.js';
import { agentStateDetail, type AgentState } from './agent-state.js';
import { AgentWait } from './agent-wait.js';
import {
  DEFAULT_WATCHDOG,
  EARLY_SETTLE_MS,
  KNOWN_DIALOG_SETTLE_MS,
  type Action,
  type PromptResponder,
  type Signal,
  type WatchdogConfig,
  type WatchdogListener,
  type WatchdogRules,
} from './watchdog-types.js';

export interface WatchdogOptions {
  /** Decides answer-or-escalate for known prompts; without one every prompt is escalated. */
  readonly responder?: PromptResponder;
  /** The job's environment (the responder reads registry settings from it). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

interface Candidate {
  readonly key: string;
  readonly match: PromptMatch;
  readonly since: number;
}

interface Episode {
  readonly code: string;
  key: string;
  readonly since: number;
  /** When the job was blocked on it. */
  readonly at: number;
  /**
   * Resumed from the board after a daemon restart, until the first screen:
   * that screen tells which prompt or dialog it is (its key), and nothing
   * before it may end the block.
   */
  resuming?: boolean;
}

/** A job's state as the board kept it, for a watchdog that takes over a job already running (an adopted one). */
export interface ResumePoint {
  readonly state: 'running' | 'blocked';
  readonly reason: Reason;
  /** When the board's last transition was. */
  readonly since: number;
  /** The action the block was paged for (from the evidence), when there is one. */
  readonly action?: Action;
}

export class Watchdog {
  private sm: TaskStateMachine;
  private readonly progress = new Progress();
  private readonly listeners: WatchdogListener[] = [];
  private readonly actionLog: Action[] = [];
  private screen: ScreenSnapshot | undefined;
  /** Prompts and dialogs read off screens seen before: spinner frames come round again and again. */
  private readonly readings = new ScreenReadings();
  private candidate: Candidate | undefined;
  /** A dialog no rule names (dialog-structure.ts), since its structure last changed. */
  private dialog: { readonly key: string; readonly match: DialogMatch; readonly since: number } | undefined;
  private episode: Episode | undefined;
  /** What the agent said about itself (agent-wait.ts). */
  private readonly agent = new AgentWait();
  private foreground: string | null = null;
  private readingTty = false;
  /** An automatic answer awaiting proof that its prompt left the screen. */
  private verify: { key: string; due: number } | undefined;
  private readonly answered = new Set<string>();
  private readonly responder: PromptResponder;
  private readonly env: Readonly<Record<string, string | undefined>>;

  constructor(
    private rules: WatchdogRules,
    private readonly clock: Clock,
    readonly config: WatchdogConfig = DEFAULT_WATCHDOG,
    options: WatchdogOptions = {},
  ) {
    this.sm = new TaskStateMachine(clock.now());
    this.responder = options.responder ?? NO_RESPONDER;
    this.env = options.env ?? {};
  }

  listen(l: WatchdogListener): void {
    this.listeners.push(l);
  }

  get state(): TaskState {
    return this.sm.state;
  }
  get reason(): Reason {
    return this.sm.reason;
  }
  get history(): readonly Transition[] {
    return this.sm.history;
  }
  get actions(): readonly Action[] {
    return this.actionLog;
  }

  /** Rules can be swapped live (reload); the current candidate is re-checked on the next screen. */
  setRules(rules: WatchdogRules): void {
    this.rules = rules;
  }

  /** What the watchdog currently believes, for `show` and logs. */
  status() {
    return {
      state: this.sm.state,
      reason: this.sm.reason,
      lastScreenChange: this.progress.lastScreenChange,
      lastNewScreen: this.progress.lastNewScreen,
      lastOutput: this.progress.lastOutputAt ?? null,
      lastToolEvent: this.progress.tools.lastEventAt ?? null,
      toolsInFlight: this.progress.tools.inFlight,
      procBusy: this.progress.procBusy,
      lastProgress: this.progress.lastProgress(),
      promptCandidate: this.candidate ? { rule: this.candidate.match.rule.id, since: this.candidate.since } : null,
    };
  }

  start(): void {
    const now = this.clock.now();
    this.progress.start(now);
    this.move('running', { code: 'started' }, now);
  }

  /**
   * Takes over a job another daemon supervised (adopted from the PTY host
   * after a restart), in the state the board has, silently: the board, the
   * pages and the evidence have it already. A block stays the same episode
   * (no new action, no new page) if the first screen still shows it.
   */
  resume(r: ResumePoint): void {
    const now = this.clock.now();
    const t = Math.min(r.since, now);
    this.progress.start(now);
    // Its history starts when the board's last move was: an exit seen meanwhile comes after it.
    this.sm = new TaskStateMachine(t);
    this.sm.transition('running', r.state === 'running' ? r.reason : { code: 'started' }, t);
    if (r.state !== 'blocked') return;
    this.sm.transition('blocked', r.reason, t);
    const key = r.reason.code === 'agent-waiting' ? `agent:${r.reason.detail ?? ''}` : r.reason.code;
    this.episode = { code: r.reason.code, key, since: t, at: t, resuming: true };
  }

  observe(signal: Signal): void {
    if (this.sm.state === 'done') return;
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
        if (signal.event.phase === 'finish' || !this.waitsForPerson()) this.wake('tool', now);
        break;
      case 'proc':
        this.onProc(signal.busy, now);
        break;
      case 'foreground':
        this.foreground = signal.program;
        break;
      case 'tty-read':
        this.readingTty = signal.reading;
        break;
      case 'agent':
        this.onAgent(signal.signal, now);
        break;
      case 'probe':
        this.onProbe(signal.probe, signal.text, now);
        break;
      case 'person':
        // A cancel ends the job; it does not let it go on.
        if (signal.action !== 'cancel') this.onPerson(signal.by, now);
        break;
      case 'exit':
        this.onExit(signal, Math.max(signal.at ?? now, this.sm.history.at(-1)!.t));
        return;
    }
    this.evaluate(now);
  }

  /** Re-evaluates timers at the clock's current time. */
  tick(): void {
    if (this.sm.state !== 'done') this.evaluate(this.clock.now());
  }

  /** The next time (ms) at which tick() could change something; undefined if none. */
  nextDeadline(): number | undefined {
    if (this.sm.state === 'done' || this.sm.state === 'queued') return undefined;
    const now = this.clock.now();
    const due: number[] = [];
    if (this.candidate && !this.blockedOn(this.candidate.key)) due.push(this.candidate.since + this.settleFor(this.candidate));
    if (this.dialog && !this.blockedOn(this.dialog.key)) due.push(this.dialog.since + this.config.settleMs);
    if (this.verify) due.push(this.verify.due);
    const agentDue = this.sm.state === 'running' && !this.candidate ? this.agent.deadline(this.progress.stillness(this.config.settleMs)) : undefined;
    if (agentDue !== undefined) due.push(agentDue);
    if (this.sm.state === 'running') {
      const quietDue = this.progress.lastNewScreen + this.config.screenQuietMs;
      due.push(quietDue);
      if (!this.progress.somethingMoves()) due.push(Math.max(quietDue, this.hangDeadline()));
    }
    const future = due.filter((d) => d > now);
    return future.length ? Math.min(...future) : undefined;
  }

  private onScreen(snap: ScreenSnapshot, now: number): void {
    const changed = snap.fingerprint !== this.screen?.fingerprint;
    this.screen = snap;
    const resuming = this.episode?.resuming === true;
    // The screen rebuilt after a restart is what was there, not something new.
    const fresh = changed && this.progress.screenChanged(snap.fingerprint, now) && !resuming;
    const m = this.readings.prompt(snap, this.rules.prompts);
    const key = m ? `${m.rule.id}\n${m.text}` : undefined;
    if (key !== this.candidate?.key) this.candidate = m && key ? { key, match: m, since: now } : undefined;
    if (resuming) this.resumeOn(m, snap);
    this.onDialog(m ? undefined : snap, now);
    // A blink or a spinner frame on a hung or questioning screen is not activity; something new is.
    if (fresh && this.sm.state === 'blocked' && this.wokenByScreen(now)) this.wake('screen', now);
    // A quiet spell is over once the screen moves again: the board must not say "quiet" of a job that prints.
    if (fresh && this.sm.state === 'running' && this.sm.reason.code.startsWith('quiet-')) this.restate({ code: 'screen' }, now);
  }

  /**
   * The first screen of a resumed block: the prompt (or dialog) it names, if
   * it is still there, is the block's own, settled since the block began.
   * If it is gone, the next evaluate ends the block as any cleared prompt.
   */
  private resumeOn(m: PromptMatch | undefined, snap: ScreenSnapshot): void {
    const e = this.episode!;
    e.resuming = false;
    if (e.code === 'prompt' && m && this.candidate && m.rule.id === this.sm.reason.rule) {
      e.key = this.candidate.key;
      this.candidate = { ...this.candidate, since: e.since };
    }
    const d = e.code === 'unknown-dialog' && !m ? this.readings.dialog(snap) : undefined;
    if (d) {
      e.key = dialogKey(d);
      this.dialog = { key: e.key, match: d, since: e.since };
    }
  }

  /**
   * Which blocks something new on screen ends: a known prompt and a dialog
   * end when they leave the screen; an agent's "waiting" ends when it says it
   * works again, or with new content once its dialog had time to be drawn
   * (a rejected permission fires no hook, and would otherwise stay blocked).
   */
  private wokenByScreen(now: number): boolean {
    const code = this.sm.reason.code;
    if (code === 'prompt' || code === 'unknown-dialog' || this.probeBlocked()) return false;
    return code !== 'agent-waiting' || now - (this.episode?.at ?? now) >= this.config.settleMs;
  }

  /** Only an agent-waiting block ends on the agent's word; a hang ends when the agent works again. */
  private onAgent(s: AgentState, now: number): void {
    this.agent.say(s, now);
    if (s.state === 'working') this.progress.agentWorkedAt = now;
    if (s.state === 'waiting') return;
    const code = this.sm.state === 'blocked' ? this.sm.reason.code : undefined;
    if (code === 'agent-waiting' || (code === 'hung' && s.state === 'working')) {
      this.episode = undefined;
      this.move('running', { code: 'agent-working', detail: agentStateDetail(s) }, now);
    }
  }

  /** Known rules win: a dialog is looked for only when no rule matches. It ends when its structure leaves the screen. */
  private onDialog(snap: ScreenSnapshot | undefined, now: number): void {
    const d = snap ? this.readings.dialog(snap) : undefined;
    const key = d ? dialogKey(d) : undefined;
    if (key !== this.dialog?.key) this.dialog = d && key ? { key, match: d, since: now } : undefined;
    if (this.sm.state === 'blocked' && this.sm.reason.code === 'unknown-dialog' && !this.blockedOn(this.dialog?.key ?? '')) this.promptCleared(now);
  }

  private onProc(busy: boolean, now: number): void {
    this.progress.proc(busy, now);
    if (busy && this.sm.state === 'blocked' && this.sm.reason.code === 'hung') this.wake('proc', now);
  }

  private onExit(s: Extract<Signal, { kind: 'exit' }>, now: number): void {
    const code = s.stoppedFor ?? (s.signal ? 'signal' : 'exit');
    const reason: Reason = { code, exitCode: s.exitCode, signal: s.signal, ...(s.detail ? { detail: s.detail } : {}) };
    this.candidate = undefined;
    this.move('done', reason, now);
  }

  /**
   * The dialog left the screen: answered. An agent's "waiting" said while it
   * was up was about it (Claude's hook fires as its dialog is drawn, and a
   * rejection fires nothing), so it ends with it rather than blocking anew.
   */
  private promptCleared(now: number): void {
    this.episode = undefined;
    this.agent.clear();
    this.move('running', { code: 'prompt-cleared' }, now);
  }

  /** Activity ends an unknown-prompt or hung episode; a known prompt ends only when it leaves the screen. */
  private wake(code: 'screen' | 'tool' | 'proc', now: number): void {
    if (this.sm.state !== 'blocked' || this.sm.reason.code === 'prompt' || this.probeBlocked()) return;
    this.episode = undefined;
    this.agent.clear();
    this.move('running', { code }, now);
  }

  private evaluate(now: number): void {
    // A resumed block waits for its first screen: without one, every prompt looks gone.
    if (this.episode?.resuming) return;
    this.checkAnswerTookEffect(now);
    const c = this.candidate;
    if (c && now - c.since >= this.settleFor(c)) {
      if (!this.blockedOn(c.key)) this.blockOnPrompt(c, now);
      return;
    }
    if (this.sm.state === 'blocked' && this.sm.reason.code === 'prompt') this.promptCleared(now);
    if (this.sm.state === 'running' && !this.candidate && this.agent.due(now, this.progress.stillness(this.config.settleMs))) {
      const detail = agentStateDetail(this.agent.signal!);
      this.block({ code: 'agent-waiting', class: 'unknown', detail }, bottomText(this.screen?.rows ?? []), this.agent.since!, now, `agent:${detail}`);
      return;
    }
    const d = this.dialog;
    // A dialog waits for a key; a program that still works (CPU, disk, a finished tool call) is drawing, not asking.
    if (d && this.sm.state === 'running' && now - d.since >= this.config.settleMs && !this.progress.procBusy && !this.progress.toolFinishedSince(d.since)) {
      this.block({ code: 'unknown-dialog', class: 'unknown', detail: d.match.kind }, d.match.text, d.since, now, d.key);
      return;
    }
    if (this.sm.state === 'running' && now - this.progress.lastNewScreen >= this.config.screenQuietMs) this.inspectQuiet(now);
  }

  /** The screen has been quiet for screenQuietMs: decide between question, busy, and hung. */
  private inspectQuiet(now: number): void {
    const question = this.screen ? this.readings.prompt(this.screen, this.rules.questions) : undefined;
    const { tools, lastNewScreen, procBusy } = this.progress;
    const toolDuringQuiet = tools.inFlight > 0 || (tools.lastEventAt ?? -Infinity) >= lastNewScreen;
    // A program waiting for an answer reads the terminal; it does not burn CPU.
    if (question && !toolDuringQuiet && !procBusy) {
      this.block({ code: 'unknown-prompt', class: 'unknown', detail: `question:${question.rule.id}` }, question.text, lastNewScreen, now);
    } else if (tools.inFlight > 0) {
      this.restate({ code: 'quiet-tool-in-flight', detail: tools.inFlightNames().join(',') }, now);
    } else if (procBusy) {
      this.restate({ code: 'quiet-child-busy' }, now);
    } else if (now >= this.hangDeadline()) {
      this.block({ code: 'hung', ...(this.progress.cycling() ? { detail: 'cycling-screen' } : {}) }, undefined, this.progress.lastProgress(), now);
    }
  }

  /**
   * A probe's escalation binds (issue 10.1): the job is blocked on it until a
   * person acts, whatever the agent does meanwhile (it is being interrupted;
   * its screen and transcript keep moving). A person already needed at a
   * prompt or dialog keeps that block; the probe's page still goes out.
   */
  private onProbe(probe: string, text: string, now: number): void {
    // One episode, one page: a second verdict on the same calls (a loop is often a failure loop too) is evidence only.
    if (this.probeBlocked()) return;
    const code = `${PROBE_BLOCK}${probe}`;
    const reason: Reason = { code, detail: text };
    const action: Action = { ...blockAction(reason, undefined, now, now, this.screen?.rows ?? []), text: `${probe}: ${text}`, layer: 'probe', why: text };
    if (this.sm.state === 'running' || (this.sm.state === 'blocked' && this.sm.reason.code === 'hung')) {
      this.episode = { code, key: code, since: now, at: now };
      this.move('blocked', reason, now);
    }
    this.act(action);
  }

  /** A person's `continue`, `send`, `answer` or `key` ends a probe's block: they decided the agent goes on. */
  private onPerson(by: string, now: number): void {
    if (!this.probeBlocked()) return;
    this.episode = undefined;
    this.move('running', { code: 'continued', detail: by }, now);
  }

  private probeBlocked(): boolean {
    return this.sm.state === 'blocked' && this.sm.reason.code.startsWith(PROBE_BLOCK);
  }

  /**
   * A line prompt (cursor on its line) whose program sits in a terminal read
   * settles early; a dialog a rule names settles in KNOWN_DIALOG_SETTLE_MS;
   * any other keeps the settle time. Never longer than the configured settle.
   */
  private settleFor(c: Candidate): number {
    const linePrompt = (c.match.rule.cursor ?? 'same-line') === 'same-line';
    if (linePrompt) return this.readingTty ? Math.min(EARLY_SETTLE_MS, this.config.settleMs) : this.config.settleMs;
    return Math.min(KNOWN_DIALOG_SETTLE_MS, this.config.settleMs);
  }

  private waitsForPerson(): boolean {
    const code = this.sm.state === 'blocked' ? this.sm.reason.code : undefined;
    return code === 'unknown-dialog' || code === 'agent-waiting';
  }

  private hangDeadline(): number {
    return this.progress.lastProgress() + this.config.toolGapMs;
  }

  private blockedOn(key: string): boolean {
    return this.sm.state === 'blocked' && this.episode?.key === key;
  }

  /** An automatic answer whose prompt is still there after verifyMs goes to a person; it is never sent twice. */
  private checkAnswerTookEffect(now: number): void {
    const v = this.verify;
    if (!v) return;
    if (this.candidate?.key !== v.key) {
      this.verify = undefined;
    } else if (now >= v.due) {
      this.verify = undefined;
      const c = this.candidate;
      const why = `the prompt was still on screen ${this.config.verifyMs / 1_000}s after the answer`;
      this.act(promptAction(this.screen, 'escalate', c.match, c.since, now, { layer: 'act', why, class: this.sm.reason.class ?? c.match.rule.class }));
    }
  }

  private blockOnPrompt(c: Candidate, now: number): void {
    const rule = c.match.rule;
    const decision = this.responder.decide({
      match: c.match,
      screen: this.screen!,
      foreground: this.foreground,
      env: this.env,
      askedBefore: this.answered.has(c.key),
    });
    this.episode = { code: 'prompt', key: c.key, since: c.since, at: now };
    this.move('blocked', { code: 'prompt', rule: rule.id, class: decision.class }, now);
    if (decision.kind === 'answer') {
      this.answered.add(c.key);
      this.verify = { key: c.key, due: now + this.config.verifyMs };
    }
    this.act(promptAction(this.screen, decision.kind, c.match, c.since, now, decision));
  }

  private block(reason: Reason, prompt: string | undefined, since: number, now: number, key = reason.code): void {
    this.episode = { code: reason.code, key, since, at: now };
    this.move('blocked', reason, now);
    this.act(blockAction(reason, prompt, since, now, this.screen?.rows ?? []));
  }

  private restate(reason: Reason, now: number): void {
    if (this.sm.reason.code !== reason.code) this.move(this.sm.state, reason, now);
  }

  private move(to: TaskState, reason: Reason, now: number): void {
    const tr = this.sm.transition(to, reason, now);
    for (const l of this.listeners) l.transition?.(tr);
  }

  private act(a: Action): void {
    this.actionLog.push(a);
    for (const l of this.listeners) l.action?.(a);
  }
}

