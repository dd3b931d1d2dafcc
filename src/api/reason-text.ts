/** A job's reason in words, shared by the CLI's tables and the daemon's messages. */
import type { JobReason } from '../board/types.js';

/** `code rule class code N signal`: short, for tables. */
export function reasonText(r: JobReason): string {
  return [r.code, r.rule, r.class, r.exit_code !== undefined && r.exit_code !== null ? `code ${r.exit_code}` : undefined, r.signal]
    .filter(Boolean)
    .join(' ');
}

/** "4/4: 3 blocked, 1 running"; the parts that are zero are left out. */
export function slotsText(s: { used: number; max: number; running: number; blocked: number; starting: number }): string {
  const parts = (['blocked', 'running', 'starting'] as const).filter((k) => s[k] > 0).map((k) => `${s[k]} ${k}`);
  return `${s.used}/${s.max}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/**
 * Why a queued job has not started, as the board says it: its `--after`
 * jobs not yet done ("after build (running)"), else every slot held
 * ("4/4 slots held: 3 blocked, 1 running").
 */
export function queuedText(after: readonly { name: string; state: string; reason: JobReason }[], slots: Parameters<typeof slotsText>[0], draining: boolean): string {
  const open = after.filter((d) => d.state !== 'done');
  if (open.length > 0) return `after ${open.map((d) => `${d.name} (${d.state === 'blocked' ? `blocked: ${d.reason.code}` : d.state})`).join(', ')}`;
  if (draining) return 'the daemon is draining: it starts when a daemon next starts';
  if (slots.used >= slots.max) return `${slotsText(slots).replace(':', ' slots held:')}`;
  return 'a slot is free: starting';
}

/** The short form plus the detail (why a start failed, which dependency): for one job in detail. */
export function reasonWithDetail(r: JobReason): string {
  return r.detail ? `${reasonText(r)}: ${r.detail}` : reasonText(r);
}
