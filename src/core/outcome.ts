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
  /** The shell's view: 0 only for success; a reason nightshift stopped the job for has its own code (EXIT_STATUS). */
  readonly exitStatus: number;
  readonly reason: WireReason;
}

/** One row of the exit status table: a done reason and the status it gives. */
export interface ExitStatusRow {
  /** A done reason's code; `budget:*` stands for every budget (`budget:wall`, `budget:steps`, `budget:tokens`). */
  readonly reason: string;
  /** A fixed status, or `process` when the process's own end (its code, or 128 + its signal's number) is the status. */
  readonly status: number | 'process';
  readonly meaning: string;
}

/**
 * The exit status of every done reason. A job nightshift stopped, or one
 * that ended with a verdict against it, gets its reason's code whatever the
 * process returned: an agent that exits cleanly on SIGTERM did not succeed.
 * 124 is GNU timeout's; the others sit just below it, a block no common
 * tool gives a meaning to, clear of 1 and 2 (a program's failure, bad
 * input), 70 (nightshift's internal error), 126/127 (the shell could not
 * run it) and 128 + n (killed by signal n).
 */
export const EXIT_STATUS: readonly ExitStatusRow[] = [
  { reason: 'exit', status: 'process', meaning: 'the process ended on its own: its code (0 is success)' },
  { reason: 'signal', status: 'process', meaning: 'the process was killed by a signal nightshift did not send: 128 + the signal\'s number' },
  { reason: 'turn-ended', status: 0, meaning: 'an agent given its task up front finished its turn with nothing held against it' },
  { reason: 'timeout', status: 124, meaning: '--timeout ran out (as GNU timeout)' },
  { reason: 'budget:*', status: 123, meaning: 'a budget ran out: wall time, steps or tokens' },
  { reason: 'unanswered', status: 122, meaning: 'blocked longer than the ceiling on waiting for a person' },
  { reason: 'cancelled', status: 121, meaning: 'a person cancelled it, or nightshift run was stopped by a signal' },
  { reason: 'escalated', status: 120, meaning: 'its last turn drew a verdict (a refused claim of completion, a loop) that no person cleared' },
  { reason: 'interrupted', status: 119, meaning: 'the daemon stopped or died while it ran' },
  { reason: 'lost', status: 118, meaning: 'the PTY host holding its terminal died, or another one holds it' },
  { reason: 'dependency-failed', status: 117, meaning: 'a job in its --after did not succeed, so it never ran' },
  { reason: 'start-failed', status: 116, meaning: 'it could not be started (bad cwd, no such program)' },
  { reason: 'end-of-recording', status: 115, meaning: 'a drill\'s recording ended before the process did' },
  // Not a success: the claim of done stands unchecked, and a caller (a script, an --after job) must not build on it as if it were.
  { reason: 'unverified', status: 114, meaning: 'an agent claimed done after changing code and ran no successful check of it, though reminded (the project\'s own test or check)' },
];

const FIXED: ReadonlyMap<string, number> = new Map(EXIT_STATUS.flatMap((r) => (typeof r.status === 'number' ? [[r.reason, r.status] as const] : [])));

/** The status a done reason gives whatever the process returned; undefined when the process's own end is the status. */
export function fixedExitStatus(code: string): number | undefined {
  return FIXED.get(code.startsWith('budget:') ? 'budget:*' : code);
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
 * interrupted, escalated) did not finish its work, whatever its exit code:
 * success and an exit status of 0 go together.
 */
export function isSuccess(r: Pick<Reason, 'code' | 'exitCode' | 'signal'>): boolean {
  if (r.code === 'turn-ended') return true;
  return r.code === 'exit' && !r.signal && r.exitCode === 0;
}

/** The exit status of a done job (EXIT_STATUS), the one `run` exits with and the board, show and summary.json show. */
export function exitStatus(r: Pick<Reason, 'code' | 'exitCode' | 'signal'>): number {
  return fixedExitStatus(r.code) ?? shellExitCode(r);
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

/** A done wire reason's exit status: the one it carries, else its reason's fixed code (a board-given reason: start-failed, dependency-failed); null when unknown. */
export function wireExitStatus(r: WireReason): number | null {
  return typeof r.exit_code === 'number' ? r.exit_code : (fixedExitStatus(r.code) ?? null);
}

/** A done job's `exit` (the board's, the fleet's) from its reason; null when its status is unknown. */
export function doneExit(r: WireReason): { code: number; signal: string | null } | null {
  const code = wireExitStatus(r);
  return code === null ? null : { code, signal: r.signal ?? null };
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
