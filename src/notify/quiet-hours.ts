/**
 * Quiet hours are local wall-clock times ("22:00"–"07:00") in the daemon's
 * time zone (TZ), because that is how a person thinks of their night. Pure
 * functions of an instant, so the pager stays deterministic under a test clock.
 */
import type { QuietHours } from './config.js';
import type { Page } from './page.js';

function minuteOfDay(t: number): number {
  const d = new Date(t);
  return d.getHours() * 60 + d.getMinutes();
}

/** Whether instant `t` falls inside the window (start inclusive, end exclusive). */
export function inQuietHours(q: QuietHours, t: number): boolean {
  const m = minuteOfDay(t);
  return q.start < q.end ? m >= q.start && m < q.end : m >= q.start || m < q.end;
}

/**
 * The next instant the window ends after `t`. Built from local date parts
 * so a DST change inside the night still lands on the stated end time.
 */
export function quietHoursEnd(q: QuietHours, t: number): number {
  return nextLocalTime(q.end, t);
}

/** The first instant after `t` at local time of day `minute` (minutes after midnight), DST-proof as above. */
export function nextLocalTime(minute: number, t: number): number {
  const d = new Date(t);
  const at = (dayOffset: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + dayOffset, Math.floor(minute / 60), minute % 60).getTime();
  const today = at(0);
  return today > t ? today : at(1);
}

/** A page that may wake someone: marked urgent, or of a kind the config calls urgent. */
export function breaksQuiet(q: QuietHours, page: Page): boolean {
  return page.urgent || q.urgent.includes(page.kind);
}

/** When a row due at `t` may actually go: `t`, or the window's end if it must wait. */
export function releaseTime(q: QuietHours | null, page: Page, t: number): number {
  if (!q || breaksQuiet(q, page) || !inQuietHours(q, t)) return t;
  return quietHoursEnd(q, t);
}
