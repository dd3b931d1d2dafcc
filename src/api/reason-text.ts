/** A job's reason in words, shared by the CLI's tables and the daemon's messages. */
import type { JobReason } from '../board/types.js';

/** `code rule class code N signal`: short, for tables. */
export function reasonText(r: JobReason): string {
  return [r.code, r.rule, r.class, r.exit_code !== undefined && r.exit_code !== null ? `code ${r.exit_code}` : undefined, r.signal]
    .filter(Boolean)
    .join(' ');
}

/** The short form plus the detail (why a start failed, which dependency): for one job in detail. */
export function reasonWithDetail(r: JobReason): string {
  return r.detail ? `${reasonText(r)}: ${r.detail}` : reasonText(r);
}
