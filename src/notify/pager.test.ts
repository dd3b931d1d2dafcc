import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Harness, MIN, SEC, samplePage, webhookYaml } from '../../test/helpers/notify-harness.js';

const h = new Harness();
afterEach(() => h.cleanup());
afterAll(() => h.remove());

describe('Pager delivery', () => {
  it('posts the page JSON to a webhook once per episode, however often page() is called', async () => {
    const r = await h.receiver();
    const { pager, advance } = h.setup(webhookYaml(r));
    expect(pager.page(samplePage())).toBe(1);
    expect(pager.page(samplePage())).toBe(0);
    expect(pager.page(samplePage())).toBe(0);
    expect(await pager.tick()).toMatchObject({ delivered: 1, failed: 0 });
    advance(MIN);
    await pager.tick();
    expect(r.hits).toHaveLength(1);
    expect(r.hits[0]!.headers['content-type']).toBe('application/json');
    // The page itself, plus the documented fields a script routes on.
    expect(JSON.parse(r.hits[0]!.body)).toEqual({
      ...samplePage(), version: 1, round: 1, title: 'build-api wants to run npm install left-pad — needs your permission',
      question: 'Do you want to run npm install left-pad?', risk: 'needs your permission', risk_hits: [],
      commands: ['nightshift answer build-api 1'], ways: [{ label: 'Run', command: 'nightshift answer build-api 1' }], link: null, last_lines: [],
    });
    expect(pager.pending()).toEqual([]);
    expect(pager.history('j1')).toMatchObject([{ status: 'delivered', round: 1, attempts: 0, last_error: null }]);
  });

  it('sends ntfy a text body with Title, Priority and Tags headers', async () => {
    const r = await h.receiver();
    const { pager } = h.setup(`notify:\n  notifiers:\n    - { kind: ntfy, url: "${r.url('/my-topic')}", token: "env:NTFY_TOKEN" }\n`, {
      env: { NTFY_TOKEN: 'tk_secret123' },
    });
    pager.page(samplePage({ urgent: true }));
    pager.page(samplePage({ key: 'j2:1', job: 'j2', name: 'docs-ü', kind: 'hung', prompt: null, screen: ['still compiling'] }));
    await pager.tick();
    expect(r.hits).toHaveLength(2);
    const [urgent, plain] = [...r.hits].sort((a, b) => a.body.localeCompare(b.body));
    expect(urgent!.path).toBe('/my-topic');
    expect(urgent!.body).toContain('Do you want to run npm install left-pad?');
    expect(urgent!.body).toContain('Run: nightshift answer build-api 1');
    expect(urgent!.headers).toMatchObject({
      // The dash is not Latin-1: RFC 2047 encoded, which ntfy decodes.
      title: `=?UTF-8?B?${Buffer.from('build-api wants to run npm install left-pad — needs your permission').toString('base64')}?=`,
      priority: 'high',
      tags: 'rotating_light,nightshift,prompt,permission',
      authorization: 'Bearer tk_secret123',
    });
    expect(plain!.headers.priority).toBe('default');
    expect(plain!.body).toContain('still compiling');
    // Non-ASCII titles travel RFC 2047 encoded (headers are Latin-1).
    expect(plain!.headers.title).toBe(`=?UTF-8?B?${Buffer.from('docs-ü is stuck: nothing moved').toString('base64')}?=`);
  });

  it('sends Slack {text}, the webhook URL read from the environment at send time', async () => {
    const r = await h.receiver();
    const env: NodeJS.ProcessEnv = {};
    const { pager, advance } = h.setup('notify:\n  notifiers:\n    - { kind: slack, url: "env:SLACK_URL" }\n', { env });
    pager.page(samplePage({ prompt: 'Overwrite <config> & continue?' }));
    await pager.tick();
    expect(r.hits).toHaveLength(0);
    expect(pager.pending()[0]).toMatchObject({ attempts: 1, last_error: 'environment variable SLACK_URL is not set' });
    env.SLACK_URL = r.url('/services/T0/B0/x');
    advance(5 * SEC);
    await pager.tick();
    expect(r.hits).toHaveLength(1);
    const body = JSON.parse(r.hits[0]!.body) as { text: string };
    expect(Object.keys(body)).toEqual(['text', 'blocks']);
    expect(body.text).toContain('build-api');
    expect(body.text).toContain('Overwrite &lt;config&gt; &amp; continue?');
    expect(body.text).toContain('`nightshift answer build-api 1`');
  });

  it('runs a command notifier with the page JSON on stdin and the summary as last argument', async () => {
    const out = h.fresh('page.json');
    const argv = JSON.stringify(['sh', '-c', `cat > '${out}'; printf '%s' "$0" > '${out}.arg'`]);
    const { pager } = h.setup(`notify:\n  notifiers:\n    - { kind: command, argv: ${argv} }\n`);
    pager.page(samplePage());
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(samplePage());
    expect(readFileSync(`${out}.arg`, 'utf8')).toBe('nightshift: build-api wants to run npm install left-pad — needs your permission');
  });

  it('records a failing command and retries it', async () => {
    const { pager } = h.setup(`notify:\n  notifiers:\n    - { kind: command, argv: [sh, -c, "echo no display >&2; exit 3"] }\n`);
    pager.page(samplePage());
    expect(await pager.tick()).toMatchObject({ failed: 1 });
    expect(pager.pending()[0]).toMatchObject({ attempts: 1, last_error: 'sh: exit 3: no display' });
  });
});

describe('Pager retries', () => {
  it('retries a 500 after the back-off and delivers once', async () => {
    const r = await h.receiver();
    r.statuses.push(500, 502);
    const { pager, advance, clock } = h.setup(webhookYaml(r));
    pager.page(samplePage());
    await pager.tick();
    expect(pager.pending()[0]).toMatchObject({ attempts: 1, next_at: clock.now() + 5 * SEC });
    expect(pager.pending()[0]!.last_error).toMatch(/^HTTP 500 Internal Server Error: boom/);
    advance(4 * SEC);
    await pager.tick();
    expect(r.hits).toHaveLength(1); // not due yet
    advance(1 * SEC);
    await pager.tick();
    expect(pager.pending()[0]).toMatchObject({ attempts: 2, next_at: clock.now() + 10 * SEC });
    advance(10 * SEC);
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    advance(MIN);
    await pager.tick();
    expect(r.hits).toHaveLength(3);
    expect(pager.history('j1')).toMatchObject([{ status: 'delivered', last_error: null }]);
  });

  it('caps the back-off', async () => {
    const { pager, clock } = h.setup(
      `notify:\n  notifiers:\n    - { kind: command, argv: [sh, -c, "exit 1"] }\n`,
      { backoffBaseMs: 1 * SEC, backoffMaxMs: 5 * SEC },
    );
    pager.page(samplePage());
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await pager.tick();
      const next = pager.pending()[0]!.next_at;
      delays.push(next - clock.now());
      clock.set(next);
    }
    expect(delays).toEqual([1, 2, 4, 5, 5].map((s) => s * SEC));
  });

  it('keeps retrying while the server is down and delivers when it comes up', async () => {
    const probe = await h.receiver();
    const port = probe.port;
    await probe.stop();
    const { pager, advance } = h.setup(`notify:\n  notifiers:\n    - { kind: webhook, url: "http://127.0.0.1:${port}/hook" }\n`);
    pager.page(samplePage());
    await pager.tick();
    advance(5 * SEC);
    await pager.tick();
    expect(pager.pending()[0]).toMatchObject({ attempts: 2 });
    expect(pager.pending()[0]!.last_error).toMatch(/ECONNREFUSED/);
    const r = await h.receiver(port);
    advance(10 * SEC);
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    expect(r.hits).toHaveLength(1);
  });

  it('gives up on a silent server after the HTTP timeout', async () => {
    const r = await h.receiver();
    r.delayMs = 2_000;
    const { pager } = h.setup(webhookYaml(r), { httpTimeoutMs: 200 });
    pager.page(samplePage());
    expect(await pager.tick()).toMatchObject({ failed: 1 });
    expect(pager.pending()[0]!.last_error).toBe('no answer within 200ms');
  });

  it('never sends a row twice at once when ticks overlap', async () => {
    const r = await h.receiver();
    r.delayMs = 200;
    const { pager } = h.setup(webhookYaml(r));
    pager.page(samplePage());
    const [a, b] = await Promise.all([pager.tick(), pager.tick()]);
    expect(a.delivered + b.delivered).toBe(1);
    expect(r.hits).toHaveLength(1);
  });
});
