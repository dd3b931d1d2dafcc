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
import { ToolTracker } from './tool-tracker.js';
import {
  DEFAULT_WATCHDOG,
  type Action,
  type Signal,
  type WatchdogConfig,
  type WatchdogListener,
  type WatchdogRules,
} from './watchdog-types.js';

interface Candidate {
  readonly key: string;
  readonly match: PromptMatch;
  readonly since: number;
}

interface Episode {
  readonly code: string;
  readonly key: string;
  readonly since: number;
}

export class Watchdog {
  private readonly sm: TaskStateMachine;
  private readonly tools = new ToolTracker();
  private readonly listeners: WatchdogListener[] = [];
  private readonly actionLog: Action[] = [];
  private screen: ScreenSnapshot | undefined;
  private startedAt = 0;
  private lastScreenChange = 0;
  private lastOutputAt: number | undefined;
  private procBusy = false;
  private procIdleSince = 0;
  private candidate: Candidate | undefined;
  private episode: Episode | undefined;

  constructor(
    private rules: WatchdogRules,
    private readonly clock: Clock,
    readonly config: WatchdogConfig = DEFAULT_WATCHDOG,
  ) {
    this.sm = new TaskStateMachine(clock.now());
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
      lastOutput: this.lastOutputAt ?? null,
      lastToolEvent: this.tools.lastEventAt ?? null,
      toolsInFlight: this.tools.inFlight,
      procBusy: this.procBusy,
      promptCandidate: this.candidate ? { rule: this.candidate.match.rule.id, since: this.candidate.since } : null,
    };
  }

  start(): void {
    const now = this.clock.now();
    this.startedAt = now;
    this.lastScreenChange = now;
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
        this.wake('tool', now);
        break;
      case 'proc':
        this.onProc(signal.busy, now);
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
    if (this.candidate && !this.blockedOn(this.candidate.key)) due.push(this.candidate.since + this.config.settleMs);
    if (this.sm.state === 'running') {
      due.push(this.lastScreenChange + this.config.screenQuietMs);
      if (!this.somethingMoves()) due.push(Math.max(this.lastScreenChange + this.config.screenQuietMs, this.hangDeadline()));
    }
    const future = due.filter((d) => d > now);
    return future.length ? Math.min(...future) : undefined;
  }

  private onScreen(snap: ScreenSnapshot, now: number): void {
    const changed = snap.fingerprint !== this.screen?.fingerprint;
    this.screen = snap;
    if (changed) this.lastScreenChange = now;
    const m = matchPrompt(snap, this.rules.prompts);
    const key = m ? `${m.rule.id}\n${m.text}` : undefined;
    if (key !== this.candidate?.key) this.candidate = m && key ? { key, match: m, since: now } : undefined;
    if (changed && this.sm.state === 'blocked' && this.sm.reason.code !== 'prompt') this.wake('screen', now);
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

  /** Activity ends an unknown-prompt or hung episode; a known prompt ends only when it leaves the screen. */
  private wake(code: 'screen' | 'tool' | 'proc', now: number): void {
    if (this.sm.state !== 'blocked' || this.sm.reason.code === 'prompt') return;
    this.episode = undefined;
    this.move('running', { code }, now);
  }

  private evaluate(now: number): void {
    const c = this.candidate;
    if (c && now - c.since >= this.config.settleMs) {
      if (!this.blockedOn(c.key)) this.blockOnPrompt(c, now);
      return;
    }
    if (this.sm.state === 'blocked' && this.sm.reason.code === 'prompt') {
      this.episode = undefined;
      this.move('running', { code: 'prompt-cleared' }, now);
    }
    if (this.sm.state === 'running' && now - this.lastScreenChange >= this.config.screenQuietMs) this.inspectQuiet(now);
  }

  /** The screen has been quiet for screenQuietMs: decide between question, busy, and hung. */
  private inspectQuiet(now: number): void {
    const question = this.screen ? matchPrompt(this.screen, this.rules.questions) : undefined;
    const toolDuringQuiet = this.tools.inFlight > 0 || (this.tools.lastEventAt ?? -Infinity) >= this.lastScreenChange;
    // A program waiting for an answer reads the terminal; it does not burn CPU.
    if (question && !toolDuringQuiet && !this.procBusy) {
      this.block({ code: 'unknown-prompt', class: 'unknown', detail: `question:${question.rule.id}` }, question, this.lastScreenChange, now);
    } else if (this.tools.inFlight > 0) {
      this.restate({ code: 'quiet-tool-in-flight', detail: this.tools.inFlightNames().join(',') }, now);
    } else if (this.procBusy) {
      this.restate({ code: 'quiet-child-busy' }, now);
    } else if (now >= this.hangDeadline()) {
      this.block({ code: 'hung' }, undefined, this.lastProgress(), now);
    }
  }

  private somethingMoves(): boolean {
    return this.tools.inFlight > 0 || this.procBusy;
  }

  private lastProgress(): number {
    const proc = this.procBusy ? Infinity : this.procIdleSince;
    return Math.max(this.startedAt, this.lastScreenChange, this.tools.lastEventAt ?? -Infinity, proc);
  }

  private hangDeadline(): number {
    return this.lastProgress() + this.config.toolGapMs;
  }

  private blockedOn(key: string): boolean {
    return this.sm.state === 'blocked' && this.episode?.key === key;
  }

  private blockOnPrompt(c: Candidate, now: number): void {
    const rule = c.match.rule;
    this.block({ code: 'prompt', rule: rule.id, class: rule.class }, c.match, c.since, now, c.key);
  }

  private block(reason: Reason, match: PromptMatch | undefined, since: number, now: number, key = reason.code): void {
    this.episode = { code: reason.code, key, since };
    this.move('blocked', reason, now);
    this.act({
      t: now,
      kind: 'escalate',
      rule: reason.code === 'prompt' ? (reason.rule ?? null) : null,
      class: reason.class ?? null,
      prompt: match?.text ?? null,
      text: describeBlock(reason, match),
      reason: reason.code,
      since,
      screen: this.screen?.rows ?? [],
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

function describeBlock(reason: Reason, match: PromptMatch | undefined): string {
  const lastLine = match?.text.split('\n').filter((l) => l.trim()).pop()?.trim() ?? '';
  switch (reason.code) {
    case 'prompt':
      return `waiting at a ${reason.class} prompt (rule ${reason.rule}): ${lastLine}`;
    case 'unknown-prompt':
      return `quiet screen ends in an unrecognised question: ${lastLine}`;
    default:
      return 'nothing moves: screen quiet, no tool call, no child activity';
  }
}
