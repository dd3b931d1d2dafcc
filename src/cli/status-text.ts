/** How `nightshift status` reads to a person: one fact a line, in the order they are asked about. */
import type { CommandResult } from '../api/commands.js';
import { formatDuration } from '../util/duration.js';
import { slotsText } from '../api/reason-text.js';

export { slotsText };

export type Status = CommandResult<'status'>;
type LastPage = NonNullable<Status['last_page']>;
type Delivery = LastPage['deliveries'][number];

const since = (iso: string, now: number) => formatDuration(Math.max(0, now - Date.parse(iso)));

/** One notifier's side of a page: sent, failing and retrying, held for quiet hours, or closed. */
export function deliveryText(d: Delivery, now: number): string {
  const sent = d.delivered ? `delivered ${since(d.delivered, now)} ago${d.round > 1 ? ` (reminder ${d.round - 1})` : ''}` : null;
  switch (d.status) {
    case 'delivered':
      return sent!;
    case 'acked':
    case 'resolved': {
      const closed = d.status === 'acked' ? 'acknowledged' : 'resolved';
      return sent ? `${sent}, ${closed}` : `${closed} before it was sent`;
    }
    case 'dropped':
      return `dropped${d.error ? `: ${d.error}` : ''}`;
    case 'pending': {
      const wait = d.next_try ? Date.parse(d.next_try) - now : 0;
      if (d.attempts > 0) return `failed ${d.attempts} time(s): ${d.error ?? 'no reason given'} (next try ${wait > 0 ? `in ${formatDuration(wait)}` : 'now'})`;
      return wait > 1_000 ? `held for ${formatDuration(wait)} (quiet hours)` : 'sending';
    }
  }
}

export function lastPageText(p: LastPage | null, now: number): string {
  if (!p) return 'none yet';
  const each = p.deliveries.map((d) => `${d.notifier} ${deliveryText(d, now)}`).join('; ');
  return `${p.name} (${p.kind}) ${since(p.queued, now)} ago: ${each || 'no notifier'}`;
}

export function statusText(s: Status, now: number): string {
  const notifiers = s.notifiers.length ? s.notifiers.map((n) => (n.name === n.kind ? n.kind : `${n.kind}(${n.name})`)).join(', ') : 'none — nobody will be paged';
  const rows: Array<[string, string]> = [
    ['daemon', `running, pid ${s.pid}, nightshift ${s.version}, up ${since(s.started, now)}`],
    ['state', s.state_dir],
    ['config', s.config_file ?? 'none found (nobody will be paged)'],
    ['policy', s.policy_file ?? 'none (auto-answers nothing)'],
    ['notifiers', notifiers],
    ['web', s.web_url ?? 'off'],
    ['slots', slotsText(s.slots)],
    ['queued', `${s.queued} job(s)`],
    ['adopted', `${s.adopted} job(s) at start`],
    ['last page', lastPageText(s.last_page, now)],
    ...s.warnings.map((w): [string, string] => ['warning', w]),
  ];
  return rows.map(([k, v]) => `${`${k}:`.padEnd(11)}${v}`).join('\n');
}
