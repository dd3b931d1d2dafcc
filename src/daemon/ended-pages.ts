/** Pages about a job that ended without running its course: it could not start, its --after job failed, the daemon died under it. */
import type { JobRecord } from '../board/types.js';
import type { Page, PageKind } from '../notify/page.js';

export function endedPage(rec: JobRecord, kind: PageKind, text: string, now: number, more: Partial<Pick<Page, 'rule' | 'class' | 'screen'>> = {}): Page {
  return {
    key: `${rec.id}:${kind}`,
    job: rec.id,
    name: rec.name,
    state: 'done',
    reason: kind,
    kind,
    rule: null,
    class: null,
    prompt: text,
    screen: [],
    answer_command: `nightshift show ${rec.name}`,
    time: new Date(now).toISOString(),
    urgent: false,
    ...more,
  };
}
