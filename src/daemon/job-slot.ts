/**
 * What the daemon holds for a job it runs, and what its commands may do
 * with it. A job is starting (its PTY is being set up: nothing to show or
 * type into yet, a cancel is kept for when it is up) or live (a JobHandle).
 * Commands, streams and the web get only the handle: what they read and
 * what a person may do, never the job's PTY, watchdog or files.
 */
import type { DaemonJob } from './daemon-job.js';

export type { JobHandle } from '../api/job-handle.js';

/** A job's place in the daemon from launch until it ended or failed to start. */
export type JobSlot = StartingSlot | { readonly state: 'live'; readonly job: DaemonJob };

export interface StartingSlot {
  readonly state: 'starting';
  /** A cancel that came while the job started: it is stopped as soon as it is live. */
  cancelled: boolean;
}
