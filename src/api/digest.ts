/**
 * The morning digest: what the night left for a person, assembled from
 * the board's records and notes (board/notes.ts) and the time now, and
 * nothing else, so the same night gives the same digest. Sections in the
 * order a person acts on them: what needs them, what ended badly, what was
 * answered for them, what each job cost, which probes fired.
 */
import { isSuccess } from '../core/outcome.js';
import { toReason } from '../board/reasons.js';
import type { JobNote } from '../board/notes.js';
import type { JobReason, JobRecord } from '../board/types.js';
import { PAGE_LOG_LINES } from '../notify/ended-pages.js';
import { askedInWords, cliCommand } from '../notify/page-words.js';
import { reasonWithDetail } from './reason-text.js';

/** The night a digest covers by default (`--since`, and the morning page): an evening to a morning. */
export const DIGEST_NIGHT_MS = 12 * 3_600_000;

export interface DigestInput {
  readonly jobs: readonly JobRecord[];
  /** When each blocked job blocked (Board.stateSince), by id. */
  readonly blockedSince: ReadonlyMap<string, string>;
  readonly notes: readonly JobNote[];
  /** The commands the latest page of each blocked job offered, by id: the digest says the same. */
  readonly paged?: ReadonlyMap<string, readonly string[]>;
  readonly now: number;
  /** The daemon's state folder: the commands carry `--state` unless a bare command finds it. */
  readonly stateDir: string;
  /** The night's start: jobs that ended before it and notes older than it are left out. */
  readonly since: number;
}

export interface NeedsYou {
  id: string;
  name: string;
  reason: string;
  /** What is asked, in words. */
  question: string;
  blocked_since: string;
  waited_ms: number;
  next: string[];
}
export interface EndedBadly {
  id: string;
  name: string;
  ended: string;
  /** Why, in words (the reason and its detail). */
  why: string;
  exit_code: number | null;
  /** The last lines of its final screen, redacted when they were recorded. */
  last_lines: string[];
  next: string[];
}
export interface Answered {
  id: string;
  name: string;
  time: string;
  rule: string | null;
  class: string | null;
  what: string;
}
export interface Cost {
  id: string;
  name: string;
  state: JobRecord['state'];
  wall_ms: number | null;
  tokens: number | null;
  steps: number | null;
}
export interface ProbeCount {
  probe: string;
  count: number;
}
export interface Digest {
  generated: string;
  since: string;
  needs_you: NeedsYou[];
  ended_badly: EndedBadly[];
  answered: Answered[];
  cost: Cost[];
  probes: ProbeCount[];
}

const iso = (t: number): string => new Date(t).toISOString();

export function buildDigest(d: DigestInput): Digest {
  const since = iso(d.since);
  const night = d.jobs.filter((j) => j.state !== 'done' || (j.ended !== null && j.ended >= since));
  const notes = d.notes.filter((n) => n.time >= since);
  const name = new Map(d.jobs.map((j) => [j.id, j.name]));
  return {
    generated: iso(d.now),
    since,
    needs_you: needsYou(night, d, notes),
    ended_badly: night.filter(endedBadly).map((j) => badEnd(j, lastOf(notes, j.id, 'ended'), d.stateDir)),
    answered: notes.flatMap((n) => (n.kind === 'answered' ? [{ id: n.job, name: name.get(n.job) ?? n.job, time: n.time, rule: n.rule, class: n.class, what: n.what }] : [])),
    cost: night.filter((j) => j.started !== null).map((j) => cost(j, lastOf(notes, j.id, 'ended'), d.now)),
    probes: probeCounts(notes),
  };
}

const endedBadly = (j: JobRecord): boolean => j.state === 'done' && !isSuccess(toReason(j.reason));

function lastOf<K extends JobNote['kind']>(notes: readonly JobNote[], job: string, kind: K): Extract<JobNote, { kind: K }> | undefined {
  return notes.findLast((n): n is Extract<JobNote, { kind: K }> => n.job === job && n.kind === kind);
}

/** Blocked jobs, the one that has waited longest first. */
function needsYou(jobs: readonly JobRecord[], d: DigestInput, notes: readonly JobNote[]): NeedsYou[] {
  const { blockedSince, now, paged } = d;
  return jobs
    .filter((j) => j.state === 'blocked')
    .map((j) => {
      const at = blockedSince.get(j.id) ?? j.last_activity ?? j.created;
      return {
        id: j.id,
        name: j.name,
        reason: reasonWithDetail(j.reason),
        question: blockQuestion(j, at, notes, now - Date.parse(j.last_activity ?? at)),
        blocked_since: at,
        waited_ms: Math.max(0, now - Date.parse(at)),
        next: paged?.has(j.id) ? [...paged.get(j.id)!] : nextFor(j, d.stateDir),
      };
    })
    .sort((a, b) => a.blocked_since.localeCompare(b.blocked_since));
}

/** What a job blocked since `at` asks, in words: the question recorded as it blocked, else the block's headline (`quietMs` 0: without how long nothing moved). */
export function blockQuestion(j: JobRecord, at: string, notes: readonly JobNote[], quietMs: number): string {
  const asked = notes.findLast((n) => n.job === j.id && n.kind === 'asked' && n.time >= at);
  return asked?.kind === 'asked' ? asked.question : blockInWords(j, quietMs);
}

/** What a block asks when no question was recorded for it (a block adopted from an older daemon): the page's headline. */
function blockInWords(j: JobRecord, quietMs: number): string {
  const code = j.reason.code;
  const kind = code === 'hung' ? 'hung' : code.startsWith('probe:') ? 'probe' : code === 'prompt' ? 'prompt' : 'unknown-prompt';
  return askedInWords({ name: j.name, kind, state: j.state, reason: code, class: j.reason.class ?? null, prompt: j.reason.detail ?? null, quiet_ms: Math.max(0, quietMs) });
}

/** The commands that move a blocked job on, the one that answers first, when no page said them (paging off, an older daemon's block). */
function nextFor(j: JobRecord, stateDir: string): string[] {
  const cli = (verb: string, ...args: string[]) => cliCommand(stateDir, verb, j.name, ...args);
  if (j.reason.code === 'hung') return [cli('attach'), cli('cancel')];
  if (j.reason.code.startsWith('probe:')) return [cli('continue'), cli('cancel')];
  if (j.reason.code === 'parked') return [cli('cancel'), cli('send', 'q')];
  return [cli('show'), cli('answer', '<answer>')];
}

function badEnd(j: JobRecord, end: Extract<JobNote, { kind: 'ended' }> | undefined, stateDir: string): EndedBadly {
  return {
    id: j.id,
    name: j.name,
    ended: j.ended!,
    why: reasonWithDetail(j.reason),
    exit_code: j.exit?.code ?? j.reason.exit_code ?? null,
    last_lines: [...(end?.lines ?? [])],
    next: [cliCommand(stateDir, 'logs', j.name, ...PAGE_LOG_LINES), cliCommand(stateDir, 'show', j.name)],
  };
}

function cost(j: JobRecord, end: Extract<JobNote, { kind: 'ended' }> | undefined, now: number): Cost {
  const stop = j.ended ? Date.parse(j.ended) : now;
  return {
    id: j.id,
    name: j.name,
    state: j.state,
    wall_ms: Math.max(0, stop - Date.parse(j.started!)),
    tokens: end?.tokens ?? j.tokens_used,
    steps: end?.steps ?? null,
  };
}

/** Verdicts by probe, the most frequent first: what the night's alerts were, by form. */
function probeCounts(notes: readonly JobNote[]): ProbeCount[] {
  const counts = new Map<string, number>();
  for (const n of notes) if (n.kind === 'verdict') counts.set(n.probe, (counts.get(n.probe) ?? 0) + 1);
  return [...counts].map(([probe, count]) => ({ probe, count })).sort((a, b) => b.count - a.count || a.probe.localeCompare(b.probe));
}
