/**
 * What commands, streams and the web get of a job the daemon runs: a view
 * of what they may read and the person's acts, each given whole, never the
 * job's PTY, watchdog or files.
 */
import type { LiveJob } from '../supervisor/live-job.js';
import type { PersonActs } from '../supervisor/person-acts.js';

/** The job as a reader sees it now: its screen, the watchdog's signals, its prompt and rule, its output from now on. */
export type JobView = Pick<LiveJob, 'screen' | 'status' | 'warnings' | 'rulesCoverage' | 'blockedPrompt' | 'blockedRule' | 'watchOutput'>;

export interface JobHandle {
  readonly id: string;
  /** Settles once the job has ended and its final records are written. */
  readonly finished: Promise<unknown>;
  readonly view: JobView;
  /** The page key of the block a person was paged for, while it lasts: the daemon's pages know it, not the job. */
  readonly blockedEpisode: string | null;
  /** What a person may do to the job, each recorded as theirs (person-acts.ts). */
  readonly acts: PersonActs;
}
