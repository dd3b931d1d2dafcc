/**
 * `nightshift page --test`: one page, marked as a test, through every
 * configured notifier at once, with each one's result. It goes through the
 * same formatting and delivery as a real page (deliver.ts), but not through
 * the outbox: nothing is retried, re-paged or held for quiet hours, since
 * the person is waiting at the terminal for the answer.
 */
import type { NotifyConfig } from './config.js';
import { deliver, deliveryProblem, type DeliverContext } from './deliver.js';
import type { Page } from './page.js';

export const TEST_JOB = 'nightshift-test';

export interface TestPageResult {
  notifier: string;
  kind: string;
  ok: boolean;
  error: string | null;
}

/** A page that says at every place a person may look (title, summary, body) that it is a test. */
export function testPage(now: number, from: string): Page {
  const time = new Date(now).toISOString();
  return {
    key: `${TEST_JOB}:${now}`,
    job: TEST_JOB,
    name: 'test-page',
    state: 'a test',
    reason: `test page from ${from}: paging works, nothing to do`,
    kind: 'other',
    rule: null,
    class: null,
    prompt: null,
    screen: [`This is a test page sent by \`nightshift page --test\` at ${time}.`],
    answer_command: 'nothing to answer: this is a test',
    time,
    urgent: false,
  };
}

export async function sendTestPage(cfg: NotifyConfig, page: Page, ctx: DeliverContext): Promise<TestPageResult[]> {
  return Promise.all(
    cfg.notifiers.map(async (n) => {
      try {
        await deliver(n, page, 1, ctx);
        return { notifier: n.name, kind: n.kind, ok: true, error: null };
      } catch (e) {
        return { notifier: n.name, kind: n.kind, ok: false, error: deliveryProblem(e) };
      }
    }),
  );
}
