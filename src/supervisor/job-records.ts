/**
 * A live job's own files: its log, recording, evidence and summary, each
 * registered in the job's store the moment it is open (a start that fails
 * half-way closes what it opened). A file that cannot be written is said
 * once through `problem` and the job goes on.
 */
import { CastWriter } from '../record/cast-writer.js';
import type { JobRecording } from '../record/job-recording.js';
import type { DisposableStore } from '../util/lifecycle.js';
import { castHeader } from './cast-header.js';
import { EvidenceLog } from './evidence.js';
import type { JobOptions, JobSpec } from './job-spec.js';
import { closeJobLogger, jobLogger, type Logger } from './logger.js';
import { JobSummary } from './summary.js';

export interface JobRecords {
  readonly log: Logger;
  readonly cast: JobRecording;
  readonly evidence: EvidenceLog;
  readonly summary: JobSummary;
}

/** `recording`: the terminal's own (the PTY host writes the file); otherwise this process writes it. */
export function openRecords(spec: JobSpec, opts: JobOptions, start: number, store: DisposableStore, problem: (file: string, e: Error) => void, recording?: JobRecording): JobRecords {
  const p = opts.paths;
  const log = jobLogger(p.log, p.id, opts.redact, (e) => problem('log.jsonl', e));
  store.add(() => closeJobLogger(log));
  const cast =
    recording ??
    CastWriter.open(p.recording, castHeader(spec, start), start, {
      ...(opts.recordingCap !== undefined ? { maxBytes: opts.recordingCap } : {}),
      onProblem: (e) => problem('recording.cast', e),
    });
  store.add(() => cast.close());
  const evidence = new EvidenceLog(p.evidence, p.id, opts.redact, (e) => problem('evidence.jsonl', e));
  const summary = new JobSummary(p, spec, start, opts.redact, (e) => problem('summary.json', e), opts.resume ? 'resume' : 'new');
  store.add(() => summary.flushed());
  if (opts.resume) evidence.resume();
  return { log, cast, evidence, summary };
}
