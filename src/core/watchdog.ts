/**
 * The watchdog: turns signals (screen, output, tool calls, process activity,
 * exit) into task-state transitions and actions. Pure and clock-injected: it
 * never reads the wall clock or sets timers; the host asks nextDeadline()
 * and calls tick() then, in real or virtual time.
 */
import type { Clock } from './clock.js';
import { matchPrompt, type PromptMatch } from './prompt-match.js';
import type { ScreenSnapshot } from './screen-snapshot.js';
import { TaskStateMachine, type Reason, type TaskState, type Transition } from './task-state.js';
import { NO_RESPONDER, describeBlock, promptAction } from './actions.js';
import { ToolTracker } from './tool-tracker.js';
import { ScreenNovelty } from './novelty.js';
import { detectDialog, dialogKey, type DialogMatch } from './dialog-structure.js';
import { agentStateDetail, type AgentState } from './agent-state.js';
import {
  AGENT_WAIT_GRACE_MS,
  DEFAULT_WATCHDOG,
  EARLY_SETTLE_MS,
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
  readonly key: string;
  readonly since: number;
  /** When the job was blocked on it. */
  readonly at: number;
}

export class Watchdog {
  private readonly sm: TaskStateMachine;
  private readonly tools = new ToolTracker();
  private readonly listeners: WatchdogListener[] = [];
  private readonly actionLog: Action[] = [];
  private screen: ScreenSnapshot | undefined;
  private startedAt = 0;
  private lastScreenChange = 0;
  /** The last time the screen showed a state it had not shown recently (novelty.ts): quiet and progress count from here. */
  private lastNewScreen = 0;
  private readonly novelty = new ScreenNovelty();
  private lastOutputAt: number | undefined;
  private procBusy = false;
  private procIdleSince = 0;
  private candidate: Candidate | undefined;
  /** A dialog no rule names (dialog-structure.ts), since its structure last changed. */
  private dialog: { readonly key: string; readonly match: DialogMatch; readonly since: number } | undefined;
  private episode: Episode | undefined;
  /** The agent said it waits for a person (agent-state.ts), since it first said so. */
  private agentWait: { readonly signal: AgentState; readonly since: number } | undefined;
  /** The agent last said it works (a hook at a tool call): progress, like a tool event. */
  private agentWorkedAt = -Infinity;
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
      lastScreenChange: this.lastScreenChange,
      lastNewScreen: this.lastNewScreen,
      lastOutput: this.lastOutputAt ?? null,
      lastToolEvent: this.tools.lastEventAt ?? null,
      toolsInFlight: this.tools.inFlight,
      procBusy: this.procBusy,
      lastProgress: this.lastProgress(),
      promptCandidate: this.candidate ? { rule: this.candidate.match.rule.id, since: this.candidate.since } : null,
    };
  }

  start(): void {
    const now = this.clock.now();
    this.startedAt = now;
    this.lastScreenChange = now;
    this.lastNewScreen = now;
    this.procIdleSince = now;
    this.move('running', { code: 'started' }, now);
  }

  observe(signal: Signal): void {
    if (this.sm.state === 'done') return;
    const now = this.clock.now();
    switch (signal.kind) {
      case 'output':
        this.lastOutputAt = now;
        break;
      case 'screen':
        this.onScreen(signal.snapshot, now);
        break;
      case 'tool':
        this.tools.observe(signal.event, now);
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
      case 'exit':
        this.onExit(signal.exitCode, signal.signal, now, signal.stoppedFor);
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
    const w = this.agentWait;
    if (w && this.sm.state === 'running' && !this.candidate) due.push(w.signal.hint ? Math.max(w.since, this.lastNewScreen, this.procIdleSince) + this.config.settleMs : w.since + AGENT_WAIT_GRACE_MS);
    if (this.sm.state === 'running') {
      due.push(this.lastNewScreen + this.config.screenQuietMs);
      if (!this.somethingMoves()) due.push(Math.max(this.lastNewScreen + this.config.screenQuietMs, this.hangDeadline()));
    }
    const future = due.filter((d) => d > now);
    return future.length ? Math.min(...future) : undefined;
  }

  private onScreen(snap: ScreenSnapshot, now: number): void {
    const changed = snap.fingerprint !== this.screen?.fingerprint;
    this.screen = snap;
    const fresh = changed && this.novelty.observe(snap.fingerprint, now);
    if (changed) this.lastScreenChange = now;
    if (fresh) this.lastNewScreen = now;
    const m = matchPrompt(snap, this.rules.prompts);
    const key = m ? `${m.rule.id}\n${m.text}` : undefined;
    if (key !== this.candidate?.key) this.candidate = m && key ? { key, match: m, since: now } : undefined;
    this.onDialog(m ? undefined : snap, now);
    // A blink or a spinner frame on a hung or questioning screen is not activity; something new is.
    if (fresh && this.sm.state === 'blocked' && this.wokenByScreen(now)) this.wake('screen', now);
  }

  /**
   * Which blocks something new on screen ends: a known prompt and a dialog
   * end when they leave the screen; an agent's "waiting" ends when it says it
   * works again, or with new content once its dialog had time to be drawn
   * (a rejected permission fires no hook, and would otherwise stay blocked).
   */
  private wokenByScreen(now: number): boolean {
    const code = this.sm.reason.code;
    if (code === 'prompt' || code === 'unknown-dialog') return false;
    return code !== 'agent-waiting' || now - (this.episode?.at ?? now) >= this.config.settleMs;
  }

  /** Only an agent-waiting block ends on the agent's word; a hang ends when the agent works again. */
  private onAgent(s: AgentState, now: number): void {
    if (s.state === 'waiting') {
      // A documented source's word replaces a hint's; a repeated word keeps its first time.
      if (!this.agentWait || (this.agentWait.signal.hint && !s.hint)) this.agentWait = { signal: s, since: now };
      return;
    }
    this.agentWait = undefined;
    if (s.state === 'working') this.agentWorkedAt = now;
    const code = this.sm.state === 'blocked' ? this.sm.reason.code : undefined;
    if (code === 'agent-waiting' || (code === 'hung' && s.state === 'working')) {
      this.episode = undefined;
      this.move('running', { code: 'agent-working', detail: agentStateDetail(s) }, now);
    }
  }

  /** Known rules win: a dialog is looked for only when no rule matches. It ends when its structure leaves the screen. */
  private onDialog(snap: ScreenSnapshot | undefined, now: number): void {
    const d = snap ? detectDialog(snap) : undefined;
    const key = d ? dialogKey(d) : undefined;
    if (key !== this.dialog?.key) this.dialog = d && key ? { key, match: d, since: now } : undefined;
    if (this.sm.state === 'blocked' && this.sm.reason.code === 'unknown-dialog' && !this.blockedOn(this.dialog?.key ?? '')) this.promptCleared(now);
  }

  private onProc(busy: boolean, now: number): void {
    if (this.procBusy && !busy) this.procIdleSince = now;
    this.procBusy = busy;
    if (busy && this.sm.state === 'blocked' && this.sm.reason.code === 'hung') this.wake('proc', now);
  }

  private onExit(exitCode: number | null, signal: string | null, now: number, stoppedFor?: string): void {
    const code = stoppedFor ?? (signal ? 'signal' : 'exit');
    const reason: Reason = { code, exitCode, signal };
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
    this.agentWait = undefined;
    this.move('running', { code: 'prompt-cleared' }, now);
  }

  /** Activity ends an unknown-prompt or hung episode; a known prompt ends only when it leaves the screen. */
  private wake(code: 'screen' | 'tool' | 'proc', now: number): void {
    if (this.sm.state !== 'blocked' || this.sm.reason.code === 'prompt') return;
    this.episode = undefined;
    this.agentWait = undefined;
    this.move('running', { code }, now);
  }

  private evaluate(now: number): void {
    this.checkAnswerTookEffect(now);
    const c = this.candidate;
    if (c && now - c.since >= this.settleFor(c)) {
      if (!this.blockedOn(c.key)) this.blockOnPrompt(c, now);
      return;
    }
    if (this.sm.state === 'blocked' && this.sm.reason.code === 'prompt') this.promptCleared(now);
    if (this.agentWaitDue(now)) {
      const w = this.agentWait!;
      const detail = agentStateDetail(w.signal);
      this.block({ code: 'agent-waiting', class: 'unknown', detail }, this.bottomText(), w.since, now, `agent:${detail}`);
      return;
    }
    const d = this.dialog;
    // A dialog waits for a key; a program that still works (CPU, disk, a finished tool call) is drawing, not asking.
    if (d && this.sm.state === 'running' && now - d.since >= this.config.settleMs && !this.procBusy && !this.toolFinishedSince(d.since)) {
      this.block({ code: 'unknown-dialog', class: 'unknown', detail: d.match.kind }, d.match.text, d.since, now, d.key);
      return;
    }
    if (this.sm.state === 'running' && now - this.lastNewScreen >= this.config.screenQuietMs) this.inspectQuiet(now);
  }

  /** The screen has been quiet for screenQuietMs: decide between question, busy, and hung. */
  private inspectQuiet(now: number): void {
    const question = this.screen ? matchPrompt(this.screen, this.rules.questions) : undefined;
    const toolDuringQuiet = this.tools.inFlight > 0 || (this.tools.lastEventAt ?? -Infinity) >= this.lastNewScreen;
    // A program waiting for an answer reads the terminal; it does not burn CPU.
    if (question && !toolDuringQuiet && !this.procBusy) {
      this.block({ code: 'unknown-prompt', class: 'unknown', detail: `question:${question.rule.id}` }, question.text, this.lastNewScreen, now);
    } else if (this.tools.inFlight > 0) {
      this.restate({ code: 'quiet-tool-in-flight', detail: this.tools.inFlightNames().join(',') }, now);
    } else if (this.procBusy) {
      this.restate({ code: 'quiet-child-busy' }, now);
    } else if (now >= this.hangDeadline()) {
      // A screen that kept changing through old states the whole time: a retry loop, a spinner on a stuck step.
      const cycling = this.lastScreenChange > this.lastNewScreen;
      this.block({ code: 'hung', ...(cycling ? { detail: 'cycling-screen' } : {}) }, undefined, this.lastProgress(), now);
    }
  }

  /**
   * The agent's "waiting" blocks when no rule's prompt is on screen (a rule
   * says more): a documented hook after a short grace, a hint only on a
   * screen with nothing new for the settle time and an idle process tree.
   */
  private agentWaitDue(now: number): boolean {
    const w = this.agentWait;
    if (!w || this.sm.state !== 'running' || this.candidate) return false;
    if (!w.signal.hint) return now - w.since >= AGENT_WAIT_GRACE_MS;
    const settle = this.config.settleMs;
    const idleFor = this.procBusy ? 0 : now - this.procIdleSince;
    return now - w.since >= settle && now - this.lastNewScreen >= settle && idleFor >= settle && !this.toolFinishedSince(w.since);
  }

  /** The bottom of the screen's content, for a page when no rule cut the prompt out. */
  private bottomText(): string | undefined {
    const rows = (this.screen?.rows ?? []).map((r) => r.trimEnd());
    while (rows.length && rows.at(-1) === '') rows.pop();
    const text = rows.slice(-12).join('\n').trim();
    return text || undefined;
  }

  /** A line prompt (cursor on its line) whose program sits in a terminal read settles early; any other keeps the settle time. */
  private settleFor(c: Candidate): number {
    const linePrompt = (c.match.rule.cursor ?? 'same-line') === 'same-line';
    return linePrompt && this.readingTty ? Math.min(EARLY_SETTLE_MS, this.config.settleMs) : this.config.settleMs;
  }

  /**
   * A tool call in flight does not hold a dialog back: an agent's permission
   * dialog always has one (the call it asks about, already in its
   * transcript). A call that finished since the dialog appeared does.
   */
  private toolFinishedSince(t: number): boolean {
    return (this.tools.lastFinishAt ?? -Infinity) >= t;
  }

  private waitsForPerson(): boolean {
    const code = this.sm.state === 'blocked' ? this.sm.reason.code : undefined;
    return code === 'unknown-dialog' || code === 'agent-waiting';
  }

  private somethingMoves(): boolean {
    return this.tools.inFlight > 0 || this.procBusy;
  }

  private lastProgress(): number {
    const proc = this.procBusy ? Infinity : this.procIdleSince;
    return Math.max(this.startedAt, this.lastNewScreen, this.tools.lastEventAt ?? -Infinity, proc, this.agentWorkedAt);
  }

  private hangDeadline(): number {
    return this.lastProgress() + this.config.toolGapMs;
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
    this.act({
      t: now,
      kind: 'escalate',
      rule: null,
      class: reason.class ?? null,
      prompt: prompt ?? null,
      text: describeBlock(reason, prompt),
      reason: reason.code,
      since,
      screen: this.screen?.rows ?? [],
      layer: 'watchdog',
      why: BLOCK_WHY[reason.code] ?? 'unrecognised question on a quiet screen',
    });
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

const BLOCK_WHY: Readonly<Record<string, string>> = {
  hung: 'nothing moves',
  'unknown-dialog': 'a dialog no rule names: escalated, never answered',
  'agent-waiting': 'the agent says it waits for a person and no rule names its screen: escalated, never answered',
};
