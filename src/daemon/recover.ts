/**
 * After the daemon and its PTY host died (a power cut, a reboot, both
 * killed): the jobs died with the host (their PTYs hung up). The next daemon ends each such job's episode for
 * good: the board says done/interrupted, the job's open pages are resolved
 * (nobody can answer a prompt whose process is gone), one page says what
 * was lost, and the job's own files are finished as the job would have
 * finished them: summary.json, an exit marker in the recording, an outcome
 * record for the open evidence episode.
 */
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { Board } from '../board/board.js';
import type { JobReason, JobRecord, TransitionRecord } from '../board/types.js';
import type { Page } from '../notify/page.js';
import type { Pager } from '../notify/pager.js';
import { redactorFor } from '../notify/secrets.js';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { endedPage } from '../notify/ended-pages.js';
import { killSurvivors } from './survivors.js';
import { shellExitCode, wireExitStatus, wireReason } from '../core/outcome.js';

/** What the job presumably got: the hang-up of its terminal when the daemon holding the PTY died. */
export const CRASH_REASON: JobReason = wireReason({
  code: 'interrupted',
  detail: 'the daemon died while it ran and its PTY host with it (a reboot, a power cut); its terminal hung up',
  exitCode: null,
  signal: 'SIGHUP',
});

/** It ignored the hang-up and ran on without its daemon: killed by the next one. */
export const SURVIVOR_REASON: JobReason = wireReason({
  code: 'interrupted',
  detail: 'the daemon and its PTY host died while it ran; it ignored the hang-up and was killed when the daemon restarted',
  exitCode: null,
  signal: 'SIGKILL',
});

export interface Recovered {
  readonly job: JobRecord;
  readonly was: TransitionRecord | undefined;
  readonly problems: string[];
}

/** `only`: the jobs whose terminal is gone (default: every running or blocked one); `reason` overrides the crash reasons. */
export function recoverCrashedJobs(board: Board, pager: Pager, now: number, only?: ReadonlySet<string>, reason?: JobReason): Recovered[] {
  const orphans = board.list().filter((j) => (j.state === 'running' || j.state === 'blocked') && (!only || only.has(j.id)));
  if (orphans.length === 0) return [];
  // A job a host of another version still runs is not ours to kill.
  const survived = reason ? new Set<string>() : killSurvivors(orphans.map((j) => j.id));
  const ids = new Set(orphans.map((j) => j.id));
  return board.recoverAfterCrash(now, (id) => reason ?? (survived.has(id) ? SURVIVOR_REASON : CRASH_REASON), ids).map((job) => {
    const transitions = board.transitions(job.id);
    const was = transitions.at(-2);
    const problems: string[] = [];
    const step = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (e) {
        problems.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
    const lastPrompt = job.paths ? openEpisode(job.paths.evidence) : undefined;
    step('pages', () => {
      pager.resolve(job.id);
      pager.page(interruptedPage(job, was, lastPrompt?.record, now, reason), redactorFor(job.env));
    });
    if (job.paths) {
      const paths = job.paths;
      step('summary.json', () => finishSummary(paths.summary, job, now));
      step('recording', () => appendExitMarker(paths.recording, shellExitCode({ exitCode: null, signal: job.reason.signal ?? CRASH_REASON.signal! }), now));
      if (lastPrompt?.open) step('evidence', () => appendOutcome(paths.evidence, job, lastPrompt.record.episode, now));
    }
    return { job, was, problems };
  });
}

interface PromptRecord {
  type: string;
  episode: number;
  rule?: string | null;
  prompt?: string | null;
  screen?: string[];
}

/** The job's last prompt record, and whether its episode never got an outcome. */
function openEpisode(file: string): { record: PromptRecord; open: boolean } | undefined {
  if (!existsSync(file)) return undefined;
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as PromptRecord];
      } catch {
        return [];
      }
    });
  const last = records.findLast((r) => r.type === 'prompt');
  if (!last) return undefined;
  const closed = records.some((r) => r.type === 'outcome' && r.episode === last.episode);
  return { record: last, open: !closed };
}

function interruptedPage(job: JobRecord, was: TransitionRecord | undefined, prompt: PromptRecord | undefined, now: number, reason?: JobReason): Page {
  const doing = was ? `${was.state} (${was.reason.code}${was.reason.rule ? ` ${was.reason.rule}` : ''})` : 'running';
  const blockedOn = was?.state === 'blocked' ? `; it was blocked on: ${prompt?.prompt ?? was.reason.code}` : '';
  const what = reason ? `${job.name} is ${reason.code} (${reason.detail ?? ''}); it was ${doing}` : `the daemon died while ${job.name} was ${doing}`;
  const text = `${what}: ${job.command.join(' ')}${blockedOn}`;
  return endedPage(job, reason ? 'lost' : 'interrupted', text, now, {
    rule: was?.reason.rule ?? null,
    class: was?.reason.class ?? null,
    screen: was?.state === 'blocked' ? (prompt?.screen ?? []).slice(-8) : [],
  });
}

function finishSummary(file: string, job: JobRecord, now: number): void {
  if (!existsSync(file)) return;
  const s = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { transitions?: unknown[] };
  const r = job.reason;
  writeJsonAtomic(file, {
    ...s,
    ended: new Date(now).toISOString(),
    state: 'done',
    reason: r.code,
    exit: { code: wireExitStatus(r), signal: r.signal ?? null },
    transitions: [...(s.transitions ?? []), { time: new Date(now).toISOString(), state: 'done', reason: r.code, detail: r.detail }],
  });
}

/** `exit:CODE` (the process's own end, as the shell saw it: a drill replays it) after the last event, at the time of the restart (asciicast v2 times are seconds from the header's timestamp). */
function appendExitMarker(file: string, code: number, now: number): void {
  if (!existsSync(file)) return;
  const head = readBytes(file, 0, 4096);
  const header = JSON.parse(head.slice(0, head.indexOf('\n'))) as { timestamp?: number };
  const lastT = lastEventTime(file);
  const t = Math.max(lastT, header.timestamp ? now / 1000 - header.timestamp : lastT);
  const tail = lastBytes(file, 1);
  appendFileSync(file, `${tail === '\n' ? '' : '\n'}[${t.toFixed(6)}, "m", "exit:${code}"]\n`);
}

function appendOutcome(file: string, job: JobRecord, episode: number, now: number): void {
  appendFileSync(file, `${JSON.stringify({ type: 'outcome', episode, job: job.id, time: new Date(now).toISOString(), followed: job.reason.code })}\n`);
}

/** The time of the recording's last complete event, read from its last 64 KB (a recording may be large). */
function lastEventTime(file: string): number {
  const lines = lastBytes(file, 65_536).split('\n').reverse();
  for (const l of lines) {
    const m = /^\[([0-9.]+),/.exec(l);
    if (m) return Number(m[1]);
  }
  return 0;
}

function lastBytes(file: string, n: number): string {
  const size = statSync(file).size;
  return readBytes(file, Math.max(0, size - n), Math.min(n, size));
}

function readBytes(file: string, at: number, len: number): string {
  const buf = Buffer.alloc(len);
  const fd = openSync(file, 'r');
  try {
    return buf.subarray(0, readSync(fd, buf, 0, len, at)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
