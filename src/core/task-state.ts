/**
 * The task state machine: queued → running ⇄ blocked → done.
 * Every state carries a reason; every legal move is listed here and nowhere
 * else, so an illegal one is a bug that fails loudly.
 */
export type TaskState = 'queued' | 'running' | 'blocked' | 'done';

export type PromptClass = 'dependency' | 'destructive' | 'permission' | 'outbound' | 'confirm' | 'unknown' | 'trust' | 'secret' | 'editor' | 'pager' | 'question';

export interface Reason {
  /** Machine-readable cause, one of REASONS[state]. */
  readonly code: string;
  /** For blocked/prompt: the rule that matched. */
  readonly rule?: string;
  readonly class?: PromptClass;
  /** For done: how the process ended. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  /** Short free text for humans. */
  readonly detail?: string;
}

export interface Transition {
  readonly t: number;
  readonly from: TaskState;
  readonly to: TaskState;
  readonly reason: Reason;
}

/** Reason codes each state accepts. `budget:` (any state) and `probe:<name>` (blocked) extend these lists. */
export const REASONS: Readonly<Record<TaskState, readonly string[]>> = {
  queued: ['submitted'],
  running: ['started', 'screen', 'output', 'tool', 'proc', 'prompt-cleared', 'agent-working', 'continued', 'quiet-child-busy', 'quiet-tool-in-flight'],
  blocked: ['prompt', 'unknown-prompt', 'unknown-dialog', 'agent-waiting', 'hung', 'parked'],
  // parked (blocked): a program done with its work waits in a watch mode for keys it will never get.
  // lost: whoever held the job's terminal (the PTY host) died, and the child with it.
  // unanswered: blocked on a page past the ceiling on waiting (blocked-ceiling.ts).
  // unverified: the agent claimed done after changing code and ran no successful check despite the reminders.
  done: ['exit', 'signal', 'cancelled', 'timeout', 'end-of-recording', 'turn-ended', 'escalated', 'unverified', 'interrupted', 'lost', 'unanswered'],
};

const MOVES: Readonly<Record<TaskState, readonly TaskState[]>> = {
  queued: ['running', 'done'],
  // running→running and blocked→blocked re-state the reason (a quiet build
  // becomes "quiet, child busy"; an unknown prompt is later recognised).
  running: ['running', 'blocked', 'done'],
  blocked: ['blocked', 'running', 'done'],
  done: [],
};

/** A probe's escalation binds: `blocked` with reason `probe:<name>` until a person acts. */
export const PROBE_BLOCK = 'probe:';

export class IllegalTransitionError extends Error {
  constructor(from: TaskState, to: TaskState, reason: Reason) {
    super(`illegal transition ${from} → ${to} (reason ${reason.code})`);
    this.name = 'IllegalTransitionError';
  }
}

export function isLegal(from: TaskState, to: TaskState, reason: Reason): boolean {
  if (!MOVES[from].includes(to)) return false;
  const extended = reason.code.startsWith('budget:') || (to === 'blocked' && reason.code.startsWith(PROBE_BLOCK));
  if (!REASONS[to].includes(reason.code) && !extended) return false;
  if (to === 'blocked' && reason.code === 'prompt' && !reason.rule) return false;
  return true;
}

export class TaskStateMachine {
  private current: TaskState = 'queued';
  private why: Reason;
  private readonly log: Transition[] = [];

  constructor(t: number, reason: Reason = { code: 'submitted' }) {
    this.why = reason;
    this.log.push({ t, from: 'queued', to: 'queued', reason });
  }

  get state(): TaskState {
    return this.current;
  }

  get reason(): Reason {
    return this.why;
  }

  get history(): readonly Transition[] {
    return this.log;
  }

  /** Moves to `to`; throws IllegalTransitionError for a move not in the table. */
  transition(to: TaskState, reason: Reason, t: number): Transition {
    if (!isLegal(this.current, to, reason)) throw new IllegalTransitionError(this.current, to, reason);
    const last = this.log[this.log.length - 1]!;
    if (t < last.t) throw new RangeError(`transition at ${t} is before the previous one at ${last.t}`);
    const move: Transition = { t, from: this.current, to, reason };
    this.current = to;
    this.why = reason;
    this.log.push(move);
    return move;
  }
}
