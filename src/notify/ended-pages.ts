/** Pages about a job that ended without running its course: it could not start, its --after job failed, the daemon died under it. */
import type { JobRecord } from '../board/types.js';
import type { Page, PageKind } from './page.js';

/** How much of a job's output a page about its end points to (`nightshift logs NAME --lines 40`): its last screenful or so. */
export const PAGE_LOG_LINES = ['--lines', '40'] as const;

/** A job that died under the daemon is best seen in what it printed last; one that never ran, in show's reason. */
const seeCommand = (rec: JobRecord, kind: PageKind): string =>
  kind === 'lost' || kind === 'interrupted' ? ['nightshift', 'logs', rec.name, ...PAGE_LOG_LINES].join(' ') : `nightshift show ${rec.name}`;

/** A page about a job that is over goes out once: `once`, so nothing re-pages it. */
export function endedPage(rec: JobRecord, kind: PageKind, text: string, now: number, more: Partial<Pick<Page, 'rule' | 'class' | 'screen' | 'last_lines'>> = {}): Page {
  const see = seeCommand(rec, kind);
  const ways = [{ label: kind === 'lost' || kind === 'interrupted' ? 'What it printed last' : 'Why', command: see }];
  if (kind === 'lost' || kind === 'interrupted') ways.push({ label: 'Details', command: `nightshift show ${rec.name}` });
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
    answer_command: see,
    commands: ways.map((w) => w.command),
    ways,
    time: new Date(now).toISOString(),
    urgent: false,
    once: true,
    ...more,
  };
}
