/**
 * The morning digest as a page (notify.digest_at): on the daemon's tick,
 * once the day's time has come, the digest of the last 12 hours goes
 * through the pager like any page, keyed by the day so it goes once.
 */
import { DIGEST_NIGHT_MS, type Digest } from '../api/digest.js';
import { digestText } from '../api/digest-text.js';
import type { CommandHost } from '../api/host.js';
import { DigestSchedule } from '../notify/digest-schedule.js';
import type { Page } from '../notify/page.js';
import { digestOf } from './commands/digest.js';

/** The outbox's job for digest pages: about no one job (a job id is never this word). */
const DIGEST_JOB = 'digest';

export class MorningDigest {
  private readonly schedule: DigestSchedule;

  constructor(
    private readonly h: Pick<CommandHost, 'board' | 'pager' | 'opts'>,
    now: number,
  ) {
    this.schedule = new DigestSchedule(h.pager.notifyConfig.digestAt, now);
  }

  /** Pages the digest if its time has come; returns the page's key when it did. */
  tick(now: number): string | undefined {
    this.schedule.reconfigure(this.h.pager.notifyConfig.digestAt, now);
    const due = this.schedule.take(now);
    if (due === undefined) return undefined;
    const page = digestPage(digestOf(this.h, DIGEST_NIGHT_MS, now), due);
    this.h.pager.page(page);
    return page.key;
  }
}

/** The page: its first line counts what needs the person, the digest's text follows. */
export function digestPage(d: Digest, due: number): Page {
  const day = new Date(due);
  const date = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
  return {
    key: `digest:${date}`,
    job: DIGEST_JOB,
    name: 'digest',
    state: date,
    reason: 'digest',
    kind: 'digest',
    rule: null,
    class: null,
    prompt: `${d.needs_you.length} need you, ${d.ended_badly.length} ended badly, ${d.answered.length} answered for you`,
    screen: digestText(d),
    answer_command: 'nightshift digest',
    time: d.generated,
    urgent: false,
    // News once: resolved as it is delivered, so the re-page round never sends it again.
    once: true,
  };
}

