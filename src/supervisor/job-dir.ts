/**
 * A job's folder in the state directory: everything it leaves behind.
 *   state/jobs/<id>/recording.cast   asciicast v2 flight recorder
 *   state/jobs/<id>/events.jsonl     tool-call event file (NIGHTSHIFT_EVENTS)
 *   state/jobs/<id>/log.jsonl        structured log (pino)
 *   state/jobs/<id>/evidence.jsonl   one record per prompt episode, append-only
 *   state/jobs/<id>/summary.json     command, timestamps, transitions, final state (atomic rewrite)
 *   state/jobs/<id>/agent-signals.jsonl  what the agent's hooks / notify program said, one JSON a line
 *   state/jobs/<id>/agent-settings.json  the job's own agent settings (Claude `--settings`, Gemini system settings)
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { InputError } from '../util/errors.js';

export interface JobPaths {
  readonly id: string;
  readonly dir: string;
  readonly recording: string;
  readonly events: string;
  readonly log: string;
  readonly evidence: string;
  readonly summary: string;
  readonly agentSignals: string;
  readonly agentSettings: string;
}

export function jobId(name: string | undefined, command: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const slug = (name ?? basename(command)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').slice(0, 32) || 'job';
  return `${stamp}-${slug}-${randomBytes(2).toString('hex')}`;
}

export function createJobDir(stateDir: string, id: string): JobPaths {
  const dir = join(stateDir, 'jobs', id);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (cause) {
    throw new InputError(`cannot create job folder ${dir}: ${(cause as Error).message}`, { file: stateDir, cause });
  }
  const paths = {
    id,
    dir,
    recording: join(dir, 'recording.cast'),
    events: join(dir, 'events.jsonl'),
    log: join(dir, 'log.jsonl'),
    evidence: join(dir, 'evidence.jsonl'),
    summary: join(dir, 'summary.json'),
    agentSignals: join(dir, 'agent-signals.jsonl'),
    agentSettings: join(dir, 'agent-settings.json'),
  };
  // The files hold what the job printed (the recording raw): 0600 from the start,
  // so every writer that opens them later finds them private.
  for (const f of [paths.recording, paths.events, paths.log, paths.evidence]) closeSync(openSync(f, 'a', 0o600));
  return paths;
}
