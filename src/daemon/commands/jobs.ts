/** Handlers that read or change a job on the board: submit, show, evidence, cancel. */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { JobRecord } from '../../board/types.js';
import { loadPolicy } from '../../rules/policy-file.js';
import { InputError } from '../../util/errors.js';
import type { CommandHost } from '../../api/host.js';
import { promptView } from './prompt-view.js';
import { choiceLabel } from '../../core/choice-labels.js';
import { reasonInWords } from '../../core/reason-words.js';
import { maskJob } from '../../notify/job-secrets.js';
import { redactDeep, redactorFor } from '../../notify/secrets.js';
import type { JobWarning } from '../../supervisor/tree-agent.js';
import { queuedText } from '../../api/reason-text.js';

export interface Submitted {
  job: JobRecord;
  /** Something the person should know about when the job will run, else null. */
  notice: string | null;
}

/** Queues a job. The spec's fields are checked by the board, whose messages name the flag. */
export async function submit(d: CommandHost, spec: Record<string, unknown>): Promise<Submitted> {
  const cwd = String(spec.cwd ?? '');
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new InputError(`--cwd ${cwd} is not an existing directory`);
  if (typeof spec.policy === 'string') await loadPolicy(spec.policy);
  const rec = d.board.submit(withCeiling(spec, d.maxBlockedMs), Date.now());
  d.schedule();
  // A draining daemon starts nothing new: the job waits for the next daemon, which the submitter must know.
  const notice = d.draining ? 'queued; the daemon is draining (shutdown), so it starts when a daemon next starts' : null;
  return { job: d.board.require(rec.id), notice };
}

/** A job submitted without its own ceiling on waiting gets the daemon's (config.yaml jobs.max_blocked, on by default). */
function withCeiling(spec: Record<string, unknown>, ms: number | null): Record<string, unknown> {
  const b = spec.budgets;
  if (b !== undefined && (typeof b !== 'object' || b === null || 'blocked_ms' in b)) return spec;
  return { ...spec, budgets: { ...(b as object | undefined), blocked_ms: ms } };
}

/** A board row: the record (a queued one says why it waits), and a live job's warnings (no transcript) when it has some. */
export function boardRow(d: CommandHost, rec: JobRecord): JobRecord & { said: string; warnings?: JobWarning[] } {
  const r = redactorFor(rec.env);
  const warnings = d.live(rec.id)?.view.warnings ?? [];
  const shown = rec.state === 'queued' ? { ...rec, reason: { ...rec.reason, detail: waitingFor(d, rec) } } : rec;
  const masked = maskJob(shown, r);
  return { ...masked, said: reasonInWords(masked.reason), ...(warnings.length ? { warnings: redactDeep(warnings, r) } : {}) };
}

function waitingFor(d: CommandHost, rec: JobRecord): string {
  const after = rec.after.flatMap((id) => d.board.get(id) ?? []);
  return queuedText(after, d.slotUse(), d.draining);
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** The live parts are read at once, in one tick; the job's files after, without holding the event loop. */
export async function show(d: CommandHost, rec: JobRecord) {
  const job = d.live(rec.id);
  const view = job?.view;
  const status = view?.status();
  const candidate = status?.promptCandidate;
  const now = {
    job: rec,
    transitions: d.board.transitions(rec.id),
    signals: status
      ? {
          last_screen_change: iso(status.lastScreenChange),
          last_output: iso(status.lastOutput),
          last_tool_event: iso(status.lastToolEvent),
          tools_in_flight: status.toolsInFlight,
          child_busy: status.procBusy,
          prompt_candidate: candidate ? { ...candidate, since: iso(candidate.since) } : null,
        }
      : null,
    // Live jobs only: an ended job's log keeps the note (rules_coverage).
    rules_coverage: view?.rulesCoverage ?? null,
    warnings: view?.warnings ?? [],
    screen: view ? view.screen.text() : null,
    prompt: job && rec.state === 'blocked' ? promptView(job.view, job.blockedEpisode, job.view.screen.snapshot().rows, choiceLabel) : null,
    // Filled in below; here so the keys keep their order in `show --json`.
    evidence: [] as Record<string, unknown>[],
    pages: d.pager.history(rec.id),
  };
  const [screen, evidence] = await Promise.all([view ? now.screen : finalScreen(rec), lastEvidence(rec, 3)]);
  return { ...now, screen, evidence };
}

async function finalScreen(rec: JobRecord): Promise<string | null> {
  if (!rec.paths) return null;
  try {
    return (JSON.parse(await readFile(rec.paths.summary, 'utf8')) as { final_screen?: string }).final_screen ?? null;
  } catch {
    return null;
  }
}

/** The job's last evidence records (each line is one JSON object, written by EvidenceLog). */
async function lastEvidence(rec: JobRecord, n: number): Promise<Record<string, unknown>[]> {
  return (await readEvidence(rec, n)).records;
}

/** The last `limit` evidence lines; a line cut short by a crash or a full disk is skipped, the rest still reads. */
async function readEvidence(rec: JobRecord, limit: number): Promise<{ records: Record<string, unknown>[] }> {
  if (!rec.paths) return { records: [] };
  let text: string;
  try {
    text = await readFile(rec.paths.evidence, 'utf8');
  } catch {
    return { records: [] };
  }
  const records = text
    .split('\n')
    .filter(Boolean)
    .slice(-limit)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  return { records };
}

/** The evidence timeline (the web's job page): the last `limit` records, read without holding the event loop. */
export async function evidence(rec: JobRecord, limit: number): Promise<{ records: Record<string, unknown>[] }> {
  const { records } = await readEvidence(rec, limit);
  return { records: redactDeep(records, redactorFor(rec.env)) };
}

export function cancel(d: CommandHost, rec: JobRecord, who = 'unknown') {
  if (rec.state === 'done') throw new InputError(`job ${rec.name} is already done (${rec.reason.code})`);
  const job = d.live(rec.id);
  if (job) void job.acts.cancel(who);
  else if (!d.cancelWhileStarting(rec.id)) {
    d.board.transition(rec.id, 'done', { code: 'cancelled', detail: `cancelled by human:${who} before it started` }, Date.now());
  }
  return { job: rec.id, cancelled: true, by: `human:${who}` };
}
