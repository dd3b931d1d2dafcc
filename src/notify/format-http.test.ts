/** Each notifier's format as a real local HTTP receiver gets it: ntfy's headers and actions, Slack's blocks, the webhook's fields. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Harness, samplePage, type Receiver } from '../../test/helpers/notify-harness.js';
import type { Page } from './page.js';

const h = new Harness();
afterEach(() => h.cleanup());
afterAll(() => h.remove());

const OPEN = 'https://ns.example.com/jobs/deploy-ask?code=nsc_login1';
const DECLINE = 'https://ns.example.com/a/nsc_action2';

/** A destructive [y/N] the responder would not answer, as the daemon pages it. */
const destructive: Page = samplePage({
  key: 'j1:1', name: 'deploy-ask', reason: 'prompt', kind: 'prompt', rule: 'generic-yes-no', class: 'destructive',
  prompt: 'Deploy to production? [y/N]', screen: ['building…', 'Deploy to production? [y/N]'], urgent: true,
  risk: ['Deploy'], decline_keys: ['n', 'enter'],
  answer_command: 'nightshift answer deploy-ask y',
  commands: ['nightshift answer deploy-ask y', 'nightshift answer deploy-ask n', 'nightshift show deploy-ask'],
  ways: [
    { label: 'Yes', command: 'nightshift answer deploy-ask y' },
    { label: 'No', command: 'nightshift answer deploy-ask n' },
    { label: 'Details', command: 'nightshift show deploy-ask' },
  ],
});
const failed: Page = samplePage({
  key: 'j2:failed', job: 'j2', name: 'build', state: 'done', reason: 'exit', kind: 'failed', rule: null, class: null,
  prompt: 'build failed: exit code 3', screen: [], last_lines: ['compiling', 'error: token=abc123 rejected'], once: true,
  answer_command: 'nightshift logs build --lines 40', commands: ['nightshift logs build --lines 40'],
  ways: [{ label: 'The rest of its output', command: 'nightshift logs build --lines 40' }],
});

function setup(r: Receiver, kind: string) {
  const linker = { link: (p: Page) => (p.decline_keys ? { url: OPEN, decline_url: DECLINE } : { url: OPEN }) };
  // A Slack URL is a secret: read from the environment, as the config requires.
  const url = kind === 'slack' ? 'env:SLACK_URL' : r.url('/n');
  return h.setup(`notify:\n  notifiers:\n    - { kind: ${kind}, url: "${url}" }\n`, { linker, env: { SLACK_URL: r.url('/n') } });
}

const decode = (v: string) => {
  const m = /^=\?UTF-8\?B\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
};

describe('ntfy', () => {
  it('title says what is asked and its risk; priority, tags; actions Open (view) and Decline (http), never a one-tap approve', async () => {
    const r = await h.receiver();
    const { pager } = setup(r, 'ntfy');
    pager.page(destructive);
    await pager.tick();
    const [hit] = await r.waitHits('/n', 1, 5_000);
    expect(decode(String(hit!.headers.title))).toBe('deploy-ask wants to deploy to production — destructive («Deploy»)');
    expect(hit!.headers).toMatchObject({ priority: 'high', tags: 'rotating_light,nightshift,prompt,destructive', click: OPEN });
    expect(hit!.headers.actions).toBe(`view, Open, ${OPEN}; http, Decline, ${DECLINE}, method=POST, clear=true`);
    expect(hit!.body).toBe(
      ['blocked · prompt · rule generic-yes-no · destructive', 'building…\nDeploy to production? [y/N]', 'Yes: nightshift answer deploy-ask y\nNo: nightshift answer deploy-ask n\nDetails: nightshift show deploy-ask'].join('\n\n'),
    );
  });

  it('a failure: its last lines, redacted, and the command that shows the rest', async () => {
    const r = await h.receiver();
    const { pager } = setup(r, 'ntfy');
    pager.page(failed);
    await pager.tick();
    const [hit] = await r.waitHits('/n', 1, 5_000);
    expect(hit!.headers.title).toBe('build failed: exit code 3');
    expect(hit!.headers.actions).toBe(`view, Open, ${OPEN}`);
    expect(hit!.body).toContain('Last lines:\ncompiling\nerror: token=[redacted] rejected');
    expect(hit!.body).toContain('The rest of its output: nightshift logs build --lines 40');
  });
});

describe('Slack', () => {
  it('blocks: headline, facts, the question, each way, a link button; text the same for notifications', async () => {
    const r = await h.receiver();
    const { pager } = setup(r, 'slack');
    pager.page(destructive);
    await pager.tick();
    const [hit] = await r.waitHits('/n', 1, 5_000);
    const body = JSON.parse(hit!.body) as { text: string; blocks: Array<Record<string, unknown>>; unfurl_links: boolean };
    expect(body.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*deploy-ask wants to deploy to production — destructive («Deploy»)*' } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'blocked · prompt · rule generic-yes-no · destructive' }] },
      { type: 'section', text: { type: 'mrkdwn', text: '```building…\nDeploy to production? [y/N]```' } },
      { type: 'section', text: { type: 'mrkdwn', text: 'Yes: `nightshift answer deploy-ask y`\nNo: `nightshift answer deploy-ask n`\nDetails: `nightshift show deploy-ask`' } },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the job' }, url: OPEN }] },
    ]);
    expect(body.text.split('\n')[0]).toBe('*deploy-ask wants to deploy to production — destructive («Deploy»)*');
    expect(body.unfurl_links).toBe(false);
  });
});

describe('webhook', () => {
  it('the documented fields: job, state, reason, class, risk, question, commands, link, last_lines', async () => {
    const r = await h.receiver();
    const { pager } = setup(r, 'webhook');
    pager.page(destructive);
    pager.page(failed);
    await pager.tick();
    const hits = await r.waitHits('/n', 2, 5_000);
    const [ask, fail] = hits.map((x) => JSON.parse(x.body) as Record<string, unknown>).sort((a, b) => String(a.job).localeCompare(String(b.job)));
    expect(ask).toMatchObject({
      version: 1, job: 'j1', name: 'deploy-ask', state: 'blocked', reason: 'prompt', class: 'destructive',
      risk: 'destructive («Deploy»)', risk_hits: ['Deploy'], question: 'Deploy to production? [y/N]',
      title: 'deploy-ask wants to deploy to production — destructive («Deploy»)',
      commands: ['nightshift answer deploy-ask y', 'nightshift answer deploy-ask n', 'nightshift show deploy-ask'],
      link: OPEN, last_lines: [],
    });
    expect(fail).toMatchObject({ job: 'j2', state: 'done', reason: 'exit', kind: 'failed', class: null, risk: null, last_lines: ['compiling', 'error: token=[redacted] rejected'], link: OPEN });
  });
});
