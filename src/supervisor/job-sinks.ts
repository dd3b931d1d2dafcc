/**
 * A job's events and the sinks they feed (recording, log, evidence,
 * summary, the owner's board and pages), in the style of asciinema's
 * session outputs: one event type, fanned out by one loop to a list of
 * sinks. The list's order is the ordering guarantee: the evidence record
 * is written before an answer's keys go, and the keys sink sends nothing
 * when that write failed. A sink that throws is reported and passed over,
 * as asciinema drops a failing output: the other sinks and the job go on.
 */
import type { Action } from '../core/watchdog-types.js';
import type { UnansweredWatch } from '../core/unanswered.js';
import type { JobRecording } from '../record/job-recording.js';
import type { EvidenceLog } from './evidence.js';
import type { RecordedInput } from './job-input.js';
import type { JobOptions } from './job-spec.js';
import { Emitter, type Event } from '../util/event.js';
import type { JobEvent, JobSink, SinkFailure } from './job-events.js';
import { plain, type Logger } from './logger.js';
import type { JobSummary } from './summary.js';

/**
 * The one loop: every event reaches every sink, in list order,
 * synchronously; a sink that throws is told to `failed`, never to whoever
 * emitted (a PTY callback, the screen feed's promise chain).
 */
export class JobSinks {
  constructor(
    private readonly list: readonly JobSink[],
    private readonly failed: SinkFailure,
  ) {}

  emit(e: JobEvent): void {
    for (let i = 0; i < this.list.length; i++) {
      const sink = this.list[i]!;
      try {
        sink.event(e);
      } catch (error) {
        this.report(error, e, sink.name ?? `#${i + 1}`);
      }
    }
  }

  private report(error: unknown, e: JobEvent, sink: string): void {
    try {
      this.failed(error, e, sink);
    } catch {
      // A failing report has nowhere left to go; the event still goes on to the next sink.
    }
  }
}

const iso = (t: number) => new Date(t).toISOString();

export function recordingSink(cast: JobRecording): JobSink {
  return {
    name: 'recording',
    event(e) {
      // No text is decoded for a recording that takes bytes, or none.
      if (e.kind === 'output') {
        if (cast.outputBytes) cast.outputBytes(e.t, e.bytes);
        else cast.output?.(e.t, e.data);
      }
      else if (e.kind === 'marker') cast.marker(e.t, e.label);
      else if (e.kind === 'resize') cast.resize(e.t, e.cols, e.rows);
      else if (e.kind === 'exit') cast.exit(e.t, e.code);
    },
  };
}

export function logSink(log: Logger): JobSink {
  return {
    name: 'log',
    event(e) {
      if (e.kind === 'transition') {
        const t = e.transition;
        log.info({ from: t.from, to: t.to, reason: t.reason }, `state ${t.to} (${t.reason.code})`);
      } else if (e.kind === 'action') {
        const a = e.action;
        log.warn({ action: a.kind, rule: a.rule, class: a.class, prompt: a.prompt && plain(a.prompt) }, a.text);
      }
    },
  };
}

/**
 * Synchronous appends: the record exists before the next sink (the answer's
 * keys) runs. One that throws wrote no record, so it counts as a failed write.
 */
export function evidenceSink(evidence: EvidenceLog): JobSink {
  return {
    name: 'evidence',
    event(e) {
      try {
        if (e.kind === 'transition') evidence.transition(e.transition, iso);
        else if (e.kind === 'action') evidence.action(e.action, iso);
      } catch (err) {
        evidence.ok = false;
        throw err;
      }
    },
  };
}

/**
 * The responder's answer typed into the job. No record, no keys (a full
 * disk): the prompt stays, the watchdog sees the answer did not take and
 * escalates.
 */
export function answerKeysSink(evidence: EvidenceLog, typed: RecordedInput, log: Logger): JobSink {
  return {
    name: 'answer keys',
    event(e) {
      if (e.kind !== 'action' || e.action.kind !== 'answer' || !e.action.keys?.length) return;
      if (!evidence.ok) log.error({ rule: e.action.rule }, 'evidence could not be written; the answer is not sent');
      else typed.answer(e.action.rule, e.action.keys);
    },
  };
}

export function summarySink(summary: JobSummary): JobSink {
  return {
    name: 'summary',
    event(e) {
      if (e.kind === 'transition') summary.transition(e.transition);
      else if (e.kind === 'finish') summary.finish(e.reason, e.t, e.screen, e.agent);
    },
  };
}

/** A wait for a person (on_unanswered, the ceiling on waiting): started by a page, ended by leaving the block. */
export function unansweredSink(watch: Pick<UnansweredWatch, 'transition' | 'action'>, name = 'on_unanswered'): JobSink {
  return {
    name,
    event(e) {
      if (e.kind === 'transition') watch.transition(e.transition);
      else if (e.kind === 'action') watch.action(e.action);
    },
  };
}

/** The owner's callbacks (`run`'s report, a test's probe, the daemon's disk), in the order the events came. */
export function callbackSink(opts: Pick<JobOptions, 'onTransition' | 'onAction' | 'onOutput' | 'onWarning' | 'onCoverage' | 'onDiskProblem' | 'onProblem'>): JobSink {
  return {
    name: 'owner callbacks',
    event(e) {
      if (e.kind === 'transition') opts.onTransition?.(e.transition);
      else if (e.kind === 'action') opts.onAction?.(e.action);
      else if (e.kind === 'output') opts.onOutput?.(e.bytes);
      else if (e.kind === 'warning') opts.onWarning?.(e.warning);
      else if (e.kind === 'coverage') opts.onCoverage?.(e.coverage);
      else if (e.kind === 'disk') opts.onDiskProblem?.(e.file, e.error);
      else if (e.kind === 'problem') opts.onProblem?.(e.message);
    },
  };
}

/** The action the job is blocked on a prompt for, as the watchdog last acted on it (show's prompt). */
export class BlockedPromptSink implements JobSink {
  readonly name = 'blocked prompt';
  private action: Action | undefined;

  get current(): Action | undefined {
    return this.action;
  }

  event(e: JobEvent): void {
    if (e.kind === 'transition' && e.transition.to !== 'blocked') this.action = undefined;
    else if (e.kind === 'action' && e.action.prompt !== null) this.action = e.action;
  }
}

/** Whoever watches the job's output live (attach, the web terminal). */
export class OutputWatchers implements JobSink {
  readonly name = 'output watchers';
  private readonly watchers = new Emitter<string>();
  /** Everything the job prints from now on. */
  readonly onOutput: Event<string> = this.watchers.event;

  /** The job has ended: its watchers are let go of. */
  clear(): void {
    this.watchers.dispose();
  }

  event(e: JobEvent): void {
    if (e.kind === 'output' && this.watchers.hasListeners) this.watchers.fire(e.data);
  }
}
