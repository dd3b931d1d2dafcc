/** `status`: what a person asks of a service before bed — is it up, since when, with which config, who gets paged, what it holds. */
import type { OutboxRow } from '../../notify/outbox.js';
import { packageVersion } from '../../util/package.js';
import type { CommandHost } from '../../api/host.js';

export function statusOf(d: CommandHost, resetLoop: boolean) {
  const counts = d.board.counts();
  return {
    pid: process.pid,
    version: packageVersion(),
    started: new Date(d.startedAt).toISOString(),
    state_dir: d.opts.stateDir,
    config_file: d.config.file,
    policy_file: d.opts.policyPath,
    rules: d.opts.rulesPath,
    notifiers: d.pager.notifyConfig.notifiers.map((n) => ({ name: n.name, kind: n.kind })),
    warnings: d.startup.warnings,
    web_url: d.webBaseUrl,
    slots: d.slotUse(),
    queued: counts.queued,
    adopted: d.adopted,
    last_page: lastPage(d.pager.lastPage()),
    counts,
    max_running: d.opts.maxRunning,
    event_loop: d.loopDelay.report(resetLoop),
  };
}

/** The page queued last and, per notifier, how its delivery went (the outbox row's state). */
function lastPage(rows: readonly OutboxRow[]) {
  const first = rows[0];
  if (!first) return null;
  const { page } = first;
  return {
    key: first.key,
    job: page.job,
    name: page.name,
    kind: page.kind,
    reason: page.reason,
    queued: new Date(first.created_at).toISOString(),
    deliveries: rows.map((r) => ({
      notifier: r.notifier,
      status: r.status,
      round: r.round,
      attempts: r.attempts,
      delivered: r.delivered_at === null ? null : new Date(r.delivered_at).toISOString(),
      next_try: r.status === 'pending' ? new Date(r.next_at).toISOString() : null,
      error: r.last_error,
    })),
  };
}
