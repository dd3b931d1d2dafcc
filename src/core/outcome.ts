/**
 * What a finished job's outcome is: whether it succeeded, the exit status
 * every consumer reports (`run`'s exit code, the board's `exit`, `show`,
 * summary.json), and its reason in the wire format (snake_case, as the
 * board, `--json` and pages carry it). Defined here once; nothing else
 * decides these.
 */
import type { PromptClass, Reason } from './task-state.js';

/** A reason as it travels: board records, `--json` lines, pages. */
export interface WireReason {
  code: string;
  rule?: string;
  class?: string;
  detail?: string;
  exit_code?: number | null;
  signal?: string | null;
}

export interface Outcome {
  readonly success: boolean;
  /** The shell's view: 0 for success, 1 for a refused completion, else the process's status. */
  readonly exitStatus: number;
  readonly reason: WireReason;
}

// The core imports nothing from Node, so no os.constants: these are Linux's
// numbers (the same on x86-64 and arm64), which is where PTYs are hosted.
const SIGNALS: Readonly<Record<string, number>> = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGBUS: 7, SIGFPE: 8, SIGKILL: 9, SIGUSR1: 10,
  SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGSTKFLT: 16, SIGCHLD: 17, SIGCONT: 18, SIGSTOP: 19,
  SIGTSTP: 20, SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24, SIGXFSZ: 25, SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28,
  SIGIO: 29, SIGPWR: 30, SIGSYS: 31,
};

/** The shell's view of how a process ended: its code, or 128 + the signal's number. */
export function shellExitCode(r: Pick<Reason, 'exitCode' | 'signal'>): number {
  if (r.signal) return 128 + (SIGNALS[r.signal] ?? 0);
  return r.exitCode ?? 0;
}

/**
 * Success is a process that ended on its own with exit code 0, or an agent
 * that finished its turn with nothing held against it (`turn-ended`). A job
 * nightshift stopped for any other cause (cancelled, timeout, budget,
 * interrupted, escalated) did not finish its work, whatever its exit code.
 */
export function isSuccess(r: Pick<Reason, 'code' | 'exitCode' | 'signal'>): boolean {
  if (r.code === 'turn-ended') return true;
  return r.code === 'exit' && !r.signal && r.exitCode === 0;
}

/** The exit status of a done job, the one `run` exits with and the board shows. */
export function exitStatus(r: Pick<Reason, 'code' | 'exitCode' | 'signal'>): number {
  if (r.code === 'turn-ended') return 0;
  // A refused claim of completion: the process was stopped cleanly, but the work is not done.
  if (r.code === 'escalated') return 1;
  return shellExitCode(r);
}

/** A reason in the wire format. A done reason's exit_code is the job's exit status. */
export function wireReason(r: Reason): WireReason {
  const ended = r.exitCode !== undefined || r.signal !== undefined;
  return {
    code: r.code,
    ...(r.rule ? { rule: r.rule } : {}),
    ...(r.class ? { class: r.class } : {}),
    ...(r.detail ? { detail: r.detail } : {}),
    ...(ended ? { exit_code: exitStatus(r) } : {}),
    ...(r.signal !== undefined ? { signal: r.signal } : {}),
  };
}

/** The state machine's view of a wire reason (camelCase, typed class). */
export function fromWire(r: WireReason, code: string = r.code): Reason {
  return {
    code,
    ...(r.rule !== undefined && { rule: r.rule }),
    ...(r.class !== undefined && { class: r.class as PromptClass }),
    ...(r.exit_code !== undefined && { exitCode: r.exit_code }),
    ...(r.signal !== undefined && { signal: r.signal }),
    ...(r.detail !== undefined && { detail: r.detail }),
  };
}

export function outcomeOf(r: Reason): Outcome {
  return { success: isSuccess(r), exitStatus: exitStatus(r), reason: wireReason(r) };
}
