/**
 * What a job emits and what hears it: the event type and the sink
 * interface, a leaf the job's spec, its sinks and the daemon's sinks all
 * import without importing one another.
 */
import type { Reason, Transition } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import type { RulesCoverage } from '../rules/coverage.js';
import type { JobWarning } from './tree-agent.js';

export type JobEvent =
  /**
   * `bytes` as they came, good only while the event is handed on (the PTY
   * host's socket is read into one buffer): a sink that keeps them copies.
   * `data` is their text, decoded when first read (Utf8Stream): the screen
   * takes bytes, so a flood nobody watches is never decoded.
   */
  | { readonly kind: 'output'; readonly t: number; readonly bytes: Buffer; readonly data: string }
  | { readonly kind: 'marker'; readonly t: number; readonly label: string }
  | { readonly kind: 'resize'; readonly t: number; readonly cols: number; readonly rows: number }
  | { readonly kind: 'transition'; readonly transition: Transition }
  | { readonly kind: 'action'; readonly action: Action }
  /** The child's exit status, before the watchdog hears of it (the recording's last marker). */
  | { readonly kind: 'exit'; readonly t: number; readonly code: number }
  /** The done reason is known: the summary's final write, in the same tick as the board's done. */
  | { readonly kind: 'finish'; readonly t: number; readonly reason: Reason; readonly screen: string; readonly agent: Record<string, unknown> | undefined }
  /** A probe judged the agent's trajectory (whatever it then did about it): the digest counts them by probe. */
  | { readonly kind: 'verdict'; readonly t: number; readonly probe: string; readonly response: string }
  /** What a person should know though nothing is blocked (a wrapped agent with no transcript). */
  | { readonly kind: 'warning'; readonly warning: JobWarning }
  /** The agent's version held against the rules' `checked:` versions (a hint, after the start). */
  | { readonly kind: 'coverage'; readonly coverage: RulesCoverage }
  /** A file of the job could not be written (a full disk): once per file; the job goes on, that file stops. */
  | { readonly kind: 'disk'; readonly file: string; readonly error: Error }
  /** What the owner should hear of though the job goes on (a release that failed at teardown). */
  | { readonly kind: 'problem'; readonly message: string };

export interface JobSink {
  /** What a report of its failure calls it. */
  readonly name?: string;
  event(e: JobEvent): void;
}

/** A sink threw on an event; `sink` is its name, or its place in the list. */
export type SinkFailure = (error: unknown, e: JobEvent, sink: string) => void;
