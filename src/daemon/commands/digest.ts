/** The `digest` and `board` handlers' reads: the night from the board's records and notes. */
import type { CommandHost } from '../../api/host.js';
import { blockQuestion, buildDigest, type Digest } from '../../api/digest.js';
import type { JobRecord } from '../../board/types.js';
import { attentionOrder } from '../../board/attention.js';
import { maskJob } from '../../notify/job-secrets.js';
import { boardRow } from './jobs.js';

/** The digest of the last `sinceMs`, as of `now`. */
export function digestOf(h: Pick<CommandHost, 'board' | 'pager' | 'opts'>, sinceMs: number, now: number): Digest {
  const jobs = h.board.list().map((j) => maskJob(j));
  const since = now - sinceMs;
  const notes = h.board.notes.since(new Date(since).toISOString());
  return buildDigest({ jobs, blockedSince: blockedSince(h, jobs), notes, paged: pagedWays(h, jobs), stateDir: h.opts.stateDir, now, since });
}

/** The pages about a block (not a warning beside it). */
const BLOCK_PAGES: ReadonlySet<string> = new Set(['prompt', 'unknown-prompt', 'hung', 'probe']);

/** Each blocked job's latest page's commands (both ways on a question, a hang's attach/send/cancel). */
function pagedWays(h: Pick<CommandHost, 'pager'>, jobs: readonly { id: string; state: string }[]): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const j of jobs) {
    if (j.state !== 'blocked') continue;
    const page = h.pager.history(j.id).findLast((r) => BLOCK_PAGES.has(r.page.kind))?.page;
    if (page?.commands?.length) out.set(j.id, page.commands);
  }
  return out;
}

/**
 * Every job in attention order (board/attention.ts), a blocked one with
 * when it blocked and what it asks (without a hang's growing quiet time,
 * so an unchanged board reads the same twice).
 */
export function boardOf(h: CommandHost) {
  const jobs = h.board.list();
  const since = blockedSince(h, jobs);
  const oldest = [...since.values()].sort()[0];
  const notes = oldest ? h.board.notes.since(oldest) : [];
  const row = (rec: JobRecord) => {
    const shown = boardRow(h, rec);
    const at = since.get(rec.id);
    return at ? { ...shown, blocked_since: at, question: blockQuestion(shown, at, notes, 0) } : shown;
  };
  return { jobs: attentionOrder(jobs.map(row)) };
}

function blockedSince(h: Pick<CommandHost, 'board'>, jobs: readonly { id: string; state: string; created: string }[]): Map<string, string> {
  return new Map(jobs.filter((j) => j.state === 'blocked').map((j) => [j.id, h.board.stateSince(j.id) ?? j.created]));
}
