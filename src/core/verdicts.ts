/**
 * What the watchdog has decided: the task state with its reason, the block
 * episode it is in, and every action, told to its listeners. The watchdog
 * (watchdog.ts) decides when; this is the one place that moves and acts.
 */
import { blockAction } from './actions.js';
import { PROBE_BLOCK, TaskStateMachine, type Reason, type TaskState, type Transition } from './task-state.js';
import type { Action, WatchdogListener } from './watchdog-types.js';

export interface Episode {
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
  /** The last sign of progress the board recorded (its last activity): a job hung before the restart stays hung since then. */
  readonly lastProgress?: number;
  /** The action the block was paged for (from the evidence), when there is one. */
  readonly action?: Action;
}

export class Verdicts {
  private sm: TaskStateMachine;
  episode: Episode | undefined;
  private readonly listeners: WatchdogListener[] = [];
  private readonly actionLog: Action[] = [];
  /** The probe block whose verdict stands until a person acts: a process that exits meanwhile did not succeed. */
  private held: Reason | undefined;

  constructor(now: number) {
    this.sm = new TaskStateMachine(now);
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

  /** The board's state, taken over silently (see Watchdog.resume): no listener hears it, no action is taken. */
  resume(r: ResumePoint, t: number): void {
    // Its history starts when the board's last move was: an exit seen meanwhile comes after it.
    this.sm = new TaskStateMachine(t);
    this.sm.transition('running', r.state === 'running' ? r.reason : { code: 'started' }, t);
    if (r.state !== 'blocked') return;
    this.sm.transition('blocked', r.reason, t);
    if (r.reason.code.startsWith(PROBE_BLOCK)) this.held = r.reason;
    const key = r.reason.code === 'agent-waiting' ? `agent:${r.reason.detail ?? ''}` : r.reason.code;
    this.episode = { code: r.reason.code, key, since: t, at: t, resuming: true };
  }

  /** Blocked with this reason code. */
  blockedFor(code: string): boolean {
    return this.sm.state === 'blocked' && this.sm.reason.code === code;
  }

  /** Blocked on this very prompt or dialog (its key). */
  blockedOn(key: string): boolean {
    return this.sm.state === 'blocked' && this.episode?.key === key;
  }

  /** The probe verdict no person has cleared yet (a refused claim, a loop), if any. */
  get heldVerdict(): Reason | undefined {
    return this.held;
  }

  probeBlocked(): boolean {
    return this.sm.state === 'blocked' && this.sm.reason.code.startsWith(PROBE_BLOCK);
  }

  waitsForPerson(): boolean {
    return this.blockedFor('unknown-dialog') || this.blockedFor('agent-waiting');
  }

  /** A new episode: blocked on `reason` since `since`, paged with the watchdog's own action. */
  block(reason: Reason, prompt: string | undefined, since: number, now: number, screen: readonly string[], key = reason.code): void {
    this.blockOn({ code: reason.code, key, since, at: now }, reason, now);
    this.act(blockAction(reason, prompt, since, now, screen));
  }

  /** A new episode whose action the caller takes. */
  blockOn(episode: Episode, reason: Reason, now: number): void {
    this.episode = episode;
    this.move('blocked', reason, now);
  }

  /**
   * A probe's escalation binds: the job is blocked on it until a
   * person acts, whatever the agent does meanwhile (it is being interrupted;
   * its screen and transcript keep moving). A person already needed at a
   * prompt or dialog keeps that block; the probe's page still goes out.
   */
  probe(probe: string, text: string, now: number, screen: readonly string[]): void {
    // One episode, one page: a second verdict on the same calls (a loop is often a failure loop too) is evidence only.
    if (this.probeBlocked()) return;
    const code = `${PROBE_BLOCK}${probe}`;
    const reason: Reason = { code, detail: text };
    this.held ??= reason;
    const action: Action = { ...blockAction(reason, undefined, now, now, screen), text: `${probe}: ${text}`, layer: 'probe', why: text };
    if (this.sm.state === 'running' || this.blockedFor('hung')) this.blockOn({ code, key: code, since: now, at: now }, reason, now);
    this.act(action);
  }

  /** A person's `continue`, `send`, `answer` or `key` ends a probe's block: they decided the agent goes on. */
  personActed(by: string, now: number): void {
    this.held = undefined;
    if (this.probeBlocked()) this.unblock({ code: 'continued', detail: by }, now);
  }

  /** The episode is over: running again for `reason`. */
  unblock(reason: Reason, now: number): void {
    this.episode = undefined;
    this.move('running', reason, now);
  }

  /** The same state with a new reason, if the code differs. */
  restate(reason: Reason, now: number): void {
    if (this.sm.reason.code !== reason.code) this.move(this.sm.state, reason, now);
  }

  move(to: TaskState, reason: Reason, now: number): void {
    const tr = this.sm.transition(to, reason, now);
    for (const l of this.listeners) l.transition?.(tr);
  }

  act(a: Action): void {
    this.actionLog.push(a);
    for (const l of this.listeners) l.action?.(a);
  }
}
