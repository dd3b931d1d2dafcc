/** Page links: the formats' links and buttons, and the pager minting them per delivery. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Harness, MIN, NOON, samplePage } from '../../test/helpers/notify-harness.js';
import { ntfyMessage, slackMessage, webhookMessage } from '../notify/format.js';
import { pageLinker, PAGE_CODE_TTL_MS, type CodeMinter } from './page-links.js';
import type { CodePurpose, Person } from '../people/types.js';

const URL_ = 'https://ns.example.com/jobs/build-api?code=nsc_login1';
const DECLINE = 'https://ns.example.com/a/nsc_act2';

/** Just the store's mintCode: numbered codes, each call remembered. */
class FakeCodes implements CodeMinter {
  readonly minted: Array<{ person: Person; purpose: CodePurpose; ttlMs: number; now: number }> = [];
  mintCode(person: Person, purpose: CodePurpose, ttlMs: number, now: number): string {
    this.minted.push({ person, purpose, ttlMs, now });
    return `nsc_${purpose.kind}${this.minted.length}`;
  }
}

describe('formats with links', () => {
  const linked = samplePage({ url: URL_, decline_url: DECLINE, decline_keys: ['2'] });

  it('ntfy: Click opens the job; Actions has Open (view) and Decline (http POST), exactly', () => {
    const h = ntfyMessage(linked, 1).headers;
    expect(h.Click).toBe(URL_);
    expect(h.Actions).toBe(`view, Open, ${URL_}; http, Decline, ${DECLINE}, method=POST, clear=true`);
    // No decline URL: only Open.
    expect(ntfyMessage(samplePage({ url: URL_ }), 1).headers.Actions).toBe(`view, Open, ${URL_}`);
    // A value with , or ; is quoted, as ntfy's short format asks.
    expect(ntfyMessage(samplePage({ url: 'https://h/x,y?code=c' }), 1).headers.Actions).toBe('view, Open, "https://h/x,y?code=c"');
  });

  it('ntfy without a link has neither header', () => {
    const h = ntfyMessage(samplePage(), 1).headers;
    expect(h).not.toHaveProperty('Click');
    expect(h).not.toHaveProperty('Actions');
  });

  it('Slack: the link as <url|Open the job>, and no unfurl (it would spend the code)', () => {
    const body = JSON.parse(slackMessage(linked, 1).body) as { text: string; unfurl_links: boolean; unfurl_media: boolean };
    expect(body.text.split('\n').at(-1)).toBe(`<${URL_}|Open the job>`);
    expect(body).toMatchObject({ unfurl_links: false, unfurl_media: false });
    expect(JSON.parse(slackMessage(samplePage(), 1).body)).toMatchObject({ text: expect.not.stringContaining('Open the job') });
  });

  it('webhook: the page JSON carries url and decline_url', () => {
    expect(JSON.parse(webhookMessage(linked, 1).body)).toMatchObject({ url: URL_, decline_url: DECLINE, decline_keys: ['2'] });
  });
});

describe('pageLinker', () => {
  const person: Person = { name: 'on-call', role: 'operator' };

  it('a login code for the job page (name percent-encoded), and an action code for a prompt with decline keys; both 1 hour', () => {
    const codes = new FakeCodes();
    const linker = pageLinker(() => ({ baseUrl: 'https://ns.example.com/sub', person, codes }));
    const links = linker.link(samplePage({ name: 'fix ü/1', decline_keys: ['n'] }), NOON);
    expect(links).toEqual({ url: 'https://ns.example.com/sub/jobs/fix%20%C3%BC%2F1?code=nsc_login1', decline_url: 'https://ns.example.com/sub/a/nsc_action2' });
    expect(codes.minted).toEqual([
      { person, purpose: { kind: 'login', next: '/jobs/fix%20%C3%BC%2F1', from: 'page' }, ttlMs: PAGE_CODE_TTL_MS, now: NOON },
      { person, purpose: { kind: 'action', job: 'j1', action: 'decline', episode: 'j1:1' }, ttlMs: PAGE_CODE_TTL_MS, now: NOON },
    ]);
    expect(PAGE_CODE_TTL_MS).toBe(60 * MIN);
  });

  it('no Decline for a prompt without decline keys, an unknown prompt, or any other kind', () => {
    const codes = new FakeCodes();
    const linker = pageLinker(() => ({ baseUrl: 'https://h', person, codes }));
    expect(linker.link(samplePage(), NOON)).not.toHaveProperty('decline_url');
    expect(linker.link(samplePage({ kind: 'unknown-prompt', decline_keys: ['n'] }), NOON)).not.toHaveProperty('decline_url');
    expect(linker.link(samplePage({ kind: 'hung', decline_keys: ['n'] }), NOON)).not.toHaveProperty('decline_url');
    expect(codes.minted.map((m) => m.purpose.kind)).toEqual(['login', 'login', 'login']);
  });

  it('no source (no public_url, or the web store not up): no links', () => {
    expect(pageLinker(() => null).link(samplePage(), NOON)).toBeNull();
  });
});

describe('the pager links each delivery, never the outbox', () => {
  const h = new Harness();
  afterEach(() => h.cleanup());
  afterAll(() => h.remove());
  const person: Person = { name: 'on-call', role: 'operator' };

  it('ntfy gets Actions with fresh codes per round; the stored page has no code', async () => {
    const r = await h.receiver();
    const codes = new FakeCodes();
    const { pager, advance } = h.setup(`notify:\n  repage_after: 30m\n  notifiers:\n    - { kind: ntfy, url: "${r.url('/t')}" }\n`, {
      linker: pageLinker(() => ({ baseUrl: 'https://ns.example.com', person, codes })),
    });
    pager.page(samplePage({ decline_keys: ['2'] }));
    await pager.tick();
    advance(31 * MIN);
    await pager.tick();
    expect(r.hits.map((x) => x.headers.actions)).toEqual([
      'view, Open, https://ns.example.com/jobs/build-api?code=nsc_login1; http, Decline, https://ns.example.com/a/nsc_action2, method=POST, clear=true',
      'view, Open, https://ns.example.com/jobs/build-api?code=nsc_login3; http, Decline, https://ns.example.com/a/nsc_action4, method=POST, clear=true',
    ]);
    expect(r.hits[1]!.headers.click).toBe('https://ns.example.com/jobs/build-api?code=nsc_login3');
    // `show` lists the outbox to viewers: a live code there would sign them in as an operator.
    expect(JSON.stringify(pager.history('j1'))).not.toContain('nsc_');
  });

  it('a linker that throws: the page still goes, without links, and the problem is told', async () => {
    const r = await h.receiver();
    const problems: string[] = [];
    const { pager } = h.setup(`notify:\n  notifiers:\n    - { kind: webhook, url: "${r.url()}" }\n`, {
      linker: { link: () => { throw new Error('store closed'); } },
      onLinkProblem: (e) => problems.push((e as Error).message),
    });
    pager.page(samplePage());
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    const body = JSON.parse(r.hits[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ ...samplePage(), link: null });
    expect(body).not.toHaveProperty('url');
    expect(problems).toEqual(['store closed']);
  });
});
