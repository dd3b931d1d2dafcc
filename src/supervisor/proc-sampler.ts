/** Samples a job's process tree on a timer and reports busy/idle and foreground changes. */
import { ProcActivity, type ProcActivityOptions } from '../core/proc-activity.js';
import type { Clock } from '../core/clock.js';
import { foregroundProcess, readProcessTree, summarizeTree, type ProcInfo } from '../pty/proctree.js';
import { readsTerminal } from '../pty/tty-read.js';
import { readTtyMode } from '../pty/tty-mode.js';
import { programKind, type TtyMode } from '../core/input-wait.js';
import { readOrUndefined } from '../util/soft-read.js';
import { backOff, sharedBeat, type Beat, type BeatTask } from '../util/beat.js';

export interface SamplerEvents {
  busy(busy: boolean): void;
  /** The deepest process of the terminal's foreground group, by its /proc comm. */
  foreground(program: string | null, file?: string): void;
  /** The foreground process started or stopped waiting in a terminal read. */
  ttyRead?(reading: boolean): void;
  /** The terminal's mode, read when the foreground starts reading it, when it differs from the last one told. */
  ttyMode?(mode: TtyMode): void;
  /** Every tree read, for whoever else needs it (the agent spotter): one poller per job. */
  tree?(tree: readonly ProcInfo[]): void;
}

/**
 * A backed-off interval, 50–100 % of itself by the job: jobs started
 * together would otherwise back off in step and read /proc all in the same
 * second, a burst that woke the daemon's event-loop watch.
 */
export function spread(ms: number, key: number): number {
  const phase = ((key * 2654435761) >>> 0) / 2 ** 32;
  return Math.round(ms * (0.5 + 0.5 * phase));
}

/** The slowest a quiet job's tree is read: busy/idle news is at most this late (a watchdog deadline samples afresh). */
export const MAX_SAMPLE_MS = 30_000;

/** A reading this young (or younger than the base interval) is fresh enough for a decision. */
const FRESH_MS = 250;

/**
 * Reads a job's tree every `everyMs` while anything moves (output, a change
 * in the tree, its CPU or its foreground), then half as often each time
 * nothing did, down to MAX_SAMPLE_MS: a hundred jobs sat at a prompt cost
 * nothing per second. A decision that needs a fresh reading asks for one
 * (sampleNow); output brings the pace back at once (poke).
 */
export class ProcSampler {
  private readonly activity: ProcActivity;
  private task: BeatTask | undefined;
  private lastForeground: string | null | undefined;
  private lastReading: boolean | undefined;
  /** The foreground process's pid, state and CPU ticks at the last terminal-read check. */
  private lastReadKey = '';
  private lastPids = '';
  private baseMs = 1_000;
  private intervalMs = 1_000;
  private lastSampleAt = -Infinity;
  private lastMode = '';

  constructor(
    private readonly rootPid: number,
    private readonly clock: Clock,
    private readonly events: SamplerEvents,
    options: Partial<ProcActivityOptions> = {},
    private readonly beat: Beat = sharedBeat,
    private readonly ttyRead: typeof readsTerminal = readsTerminal,
    private readonly ttyMode: typeof readTtyMode = readTtyMode,
  ) {
    this.activity = new ProcActivity(options);
  }

  start(everyMs: number): void {
    this.baseMs = this.intervalMs = everyMs;
    this.sample();
    this.task = this.beat.every(everyMs, () => {
      const changed = this.sample(false);
      this.intervalMs = backOff(this.intervalMs, changed, this.baseMs, MAX_SAMPLE_MS);
      return this.intervalMs === this.baseMs ? this.baseMs : spread(this.intervalMs, this.rootPid);
    });
  }

  stop(): void {
    this.task?.dispose();
    this.task = undefined;
  }

  /** Samples at once (a prompt just appeared: the responder must know who is in the foreground). */
  sampleNow(): void {
    this.sample();
  }

  /**
   * Samples now unless the last reading is younger than FRESH_MS: a deadline is about to be
   * judged, and a reading from most of an interval ago still counts a program's start-up
   * (sudo's, before its password question) as work going on.
   */
  fresh(): void {
    if (this.task && this.clock.now() - this.lastSampleAt >= Math.min(FRESH_MS, this.baseMs)) this.sample();
  }

  /** Something moved (output): back to the base pace. Cheap enough for every chunk. */
  poke(): void {
    if (!this.task || this.intervalMs === this.baseMs) return;
    this.intervalMs = this.baseMs;
    const due = this.task.due;
    if (due !== undefined && due - Date.now() > this.baseMs) this.task.reschedule(this.baseMs);
  }

  /**
   * True when anything it reports, or the set of processes, changed.
   * `asked`: a decision wants this reading (a prompt appeared, a deadline is
   * judged), so whether the foreground reads the terminal is looked up
   * afresh. A periodic reading skips that look (three more /proc files, a
   * third of a sample's cost) while the foreground process has the same pid,
   * state and CPU ticks: one that went from its read to another wait without
   * a tick of CPU is seen at the next asked reading, which every prompt gets.
   */
  private sample(asked = true): boolean {
    this.lastSampleAt = this.clock.now();
    const tree = readProcessTree(this.rootPid);
    if (tree.length === 0) return false;
    this.events.tree?.(tree);
    let changed = false;
    const pids = tree.map((p) => p.pid).join(',');
    if (pids !== this.lastPids) {
      this.lastPids = pids;
      changed = true;
    }
    const fgProc = foregroundProcess(tree);
    const fg = fgProc?.comm ?? null;
    if (fg !== this.lastForeground) {
      this.lastForeground = fg;
      this.events.foreground(fg, fgProc && programKind(fg) ? fileArgument(fgProc.pid) : undefined);
      changed = true;
    }
    const readKey = fgProc ? `${fgProc.pid}:${fgProc.state}:${fgProc.cpuTicks}` : '';
    const same = !asked && readKey === this.lastReadKey && this.lastReading !== undefined;
    const reading = same ? this.lastReading! : fgProc ? (this.ttyRead(fgProc.pid, fgProc.state) ?? false) : false;
    this.lastReadKey = readKey;
    if (reading !== this.lastReading) {
      this.lastReading = reading;
      this.events.ttyRead?.(reading);
      if (reading && fgProc) this.readMode(fgProc.pid);
      changed = true;
    }
    const activity = this.activity.observe(summarizeTree(tree, this.clock.now()));
    if (activity.changed) this.events.busy(activity.busy);
    // A busy tree is watched at the base pace: the moment it goes idle starts the hang clock.
    return changed || activity.changed || activity.busy;
  }

  /** A line read with echo off asks for a secret: the mode is read once per read that starts. */
  private readMode(pid: number): void {
    void this.ttyMode(pid).then((mode) => {
      if (!mode || !this.task) return;
      const key = `${mode.canonical}:${mode.echo}`;
      if (key === this.lastMode) return;
      this.lastMode = key;
      this.events.ttyMode?.(mode);
    });
  }
}

/** An editor's or pager's file: its last argument that is not an option (`vim -u NONE notes.md`). */
function fileArgument(pid: number): string | undefined {
  const argv = (readOrUndefined(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).slice(1);
  return argv.filter((a) => !a.startsWith('-') && !a.startsWith('+')).at(-1);
}
