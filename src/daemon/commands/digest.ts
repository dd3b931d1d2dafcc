/** The `digest` and `board` handlers' reads: the night from the board's records and notes. */
import type { CommandHost } from '../../api/host.js';
import { buildDigest, type Digest } from '../../api/digest.js';
import { attentionOrder } from '../../board/attention.js';
import { maskJob } from '../../notify/job-secrets.js';
import { boardRow } from './jobs.js';

/** The digest of the last `sinceMs`, as of `now`. */
export function digestOf(h: Pick<CommandHost, 'board'>, sinceMs: number, now: number): Digest {
  const jobs = h.board.list().map((j) => maskJob(j));
  const since = now - sinceMs;
  return buildDigest({ jobs, blockedSince: blockedSince(h, jobs), notes: h.board.notes.since(new Date(since).toISOString()), now, since });
}

/** Every job in attention order (board/attention.ts), a blocked one with when it blocked. */
export function boardOf(h: CommandHost) {
  const jobs = h.board.list();
  const since = blockedSince(h, jobs);
  return { jobs: attentionOrder(jobs.map((rec) => ({ ...boardRow(h, rec), ...(since.has(rec.id) ? { blocked_since: since.get(rec.id)! } : {}) }))) };
}

function blockedSince(h: Pick<CommandHost, 'board'>, jobs: readonly { id: string; state: string; created: string }[]): Map<string, string> {
  return new Map(jobs.filter((j) => j.state === 'blocked').map((j) => [j.id, h.board.stateSince(j.id) ?? j.created]));
}
