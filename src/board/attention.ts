/**
 * The board in the order a person attends to it: blocked jobs first, the
 * one waiting longest at the top; then running (longest running first),
 * queued (in the order they will start), and done (newest first, so last
 * night's ends come before last week's).
 */
import type { JobRecord } from './types.js';

const RANK: Record<JobRecord['state'], number> = { blocked: 0, running: 1, queued: 2, done: 3 };

type Row = Pick<JobRecord, 'state' | 'started' | 'ended'> & { readonly blocked_since?: string | undefined };

/** A new array in attention order; rows the order does not tell apart keep their given order. */
export function attentionOrder<T extends Row>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => RANK[a.state] - RANK[b.state] || within(a, b));
}

function within(a: Row, b: Row): number {
  switch (a.state) {
    case 'blocked':
      return (a.blocked_since ?? '').localeCompare(b.blocked_since ?? '');
    case 'running':
      return (a.started ?? '').localeCompare(b.started ?? '');
    case 'done':
      return (b.ended ?? '').localeCompare(a.ended ?? '');
    default:
      return 0;
  }
}
