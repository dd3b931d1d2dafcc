import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseNotifyConfig } from './config.js';
import type { Page } from './page.js';
import { Harness, MIN, SEC, samplePage, webhookYaml, type Receiver } from '../../test/helpers/notify-harness.js';

const h = new Harness();
afterEach(() => h.cleanup());
afterAll(() => h.remove());

describe('Pager episodes', () => {
  const yaml = (r: Receiver) => `notify:\n  repage_after: 30m\n  notifiers:\n    - { kind: webhook, url: "${r.url()}" }\n`;

  it('re-pages an unacknowledged episode after repage_after, as a new round', async () => {
    const r = await h.receiver();
    const { pager, advance } = h.setup(yaml(r));
    pager.page(samplePage());
    await pager.tick();
    advance(30 * MIN - SEC);
    await pager.tick();
    expect(r.hits).toHaveLength(1);
    advance(SEC);
    expect(await pager.tick()).toMatchObject({ repaged: 1, delivered: 1 });
    expect(r.hits).toHaveLength(2);
    expect(r.hits[1]!.headers['x-nightshift-round']).toBe('2');
    expect(pager.history('j1')).toMatchObject([{ status: 'delivered', round: 2 }]);
  });

  it('a page about an ended job goes out once: resolved as it is delivered, never re-paged, still sent again after a failed try', async () => {
    const r = await h.receiver();
    const { pager, advance } = h.setup(yaml(r));
    r.statuses.push(503);
    pager.page(samplePage({ key: 'j1:interrupted', kind: 'interrupted', state: 'done', reason: 'interrupted', once: true }));
    expect(await pager.tick()).toMatchObject({ failed: 1 });
    advance(5 * SEC);
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    for (let i = 0; i < 4; i++) {
      advance(30 * MIN);
      expect(await pager.tick()).toMatchObject({ repaged: 0, delivered: 0 });
    }
    expect(r.hits.map((x) => x.status)).toEqual([503, 200]);
    expect(pager.history('j1')).toMatchObject([{ status: 'resolved', round: 1 }]);
  });

  it('stops re-paging once acknowledged', async () => {
    const r = await h.receiver();
    const { pager, advance } = h.setup(yaml(r));
    pager.page(samplePage());
    await pager.tick();
    expect(pager.ack('j1')).toBe(1);
    expect(pager.ack('j1')).toBe(0);
    advance(2 * 60 * MIN);
    await pager.tick();
    expect(r.hits).toHaveLength(1);
    expect(pager.history('j1')).toMatchObject([{ status: 'acked' }]);
  });

  it('drops undelivered pages of an episode that resolved', async () => {
    const r = await h.receiver();
    r.statuses.push(500);
    const { pager, advance } = h.setup(yaml(r));
    pager.page(samplePage());
    await pager.tick();
    expect(pager.resolve('j1')).toBe(1);
    advance(MIN);
    await pager.tick();
    expect(r.hits).toHaveLength(1);
    expect(pager.pending()).toEqual([]);
    // A later episode of the same job pages again.
    pager.page(samplePage({ key: 'j1:2' }));
    await pager.tick();
    expect(r.hits).toHaveLength(2);
  });

  it('delivers after a restart what was queued before it', async () => {
    const r = await h.receiver();
    const file = h.fresh('board.sqlite');
    const first = h.setup(webhookYaml(r), { db: h.openDb(file) });
    first.pager.page(samplePage());
    first.db.close();
    const second = h.setup(webhookYaml(r), { db: h.openDb(file) });
    second.pager.page(samplePage()); // same episode again after the restart: still one page
    expect(await second.pager.tick()).toMatchObject({ delivered: 1 });
    expect(r.hits).toHaveLength(1);
  });

  it('drops rows whose notifier left the config', async () => {
    const r = await h.receiver();
    const { pager } = h.setup(webhookYaml(r, ', name: old'));
    pager.page(samplePage());
    pager.reconfigure(parseNotifyConfig(webhookYaml(r, ', name: new'), 'config.yaml'));
    await pager.tick();
    expect(r.hits).toHaveLength(0);
    expect(pager.history('j1')).toMatchObject([{ status: 'dropped', last_error: 'notifier "old" is no longer in the config' }]);
  });
});

describe('Pager quiet hours', () => {
  const night = new Date(2025, 0, 15, 23, 0).getTime();
  const morning = new Date(2025, 0, 16, 7, 0).getTime();
  const yaml = (r: Receiver) =>
    `notify:\n  repage_after: off\n  quiet_hours: { start: "22:00", end: "07:00", urgent: [prompt, budget] }\n  notifiers:\n    - { kind: webhook, url: "${r.url()}" }\n`;

  it('holds a non-urgent page until the window ends; urgent ones go at once', async () => {
    const r = await h.receiver();
    const { pager, clock } = h.setup(yaml(r), { start: night });
    pager.page(samplePage({ key: 'hung:1', job: 'hung', kind: 'hung' }));
    pager.page(samplePage({ key: 'prompt:1', job: 'prompt', kind: 'prompt' }));
    pager.page(samplePage({ key: 'marked:1', job: 'marked', kind: 'other', urgent: true }));
    expect(await pager.tick()).toMatchObject({ delivered: 2 });
    expect(r.hits.map((hit) => (JSON.parse(hit.body) as Page).job).sort()).toEqual(['marked', 'prompt']);
    expect(pager.pending()).toMatchObject([{ job: 'hung', next_at: morning, attempts: 0 }]);
    clock.set(morning - 1);
    await pager.tick();
    expect(r.hits).toHaveLength(2);
    clock.set(morning);
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    expect((JSON.parse(r.hits[2]!.body) as Page).job).toBe('hung');
  });

  it('holds a retry that falls due inside the window', async () => {
    const r = await h.receiver();
    r.statuses.push(500);
    const { pager, clock } = h.setup(yaml(r), { start: new Date(2025, 0, 15, 21, 59, 58).getTime() });
    pager.page(samplePage({ kind: 'hung' }));
    await pager.tick();
    clock.set(clock.now() + 5 * SEC);
    expect(await pager.tick()).toMatchObject({ held: 1 });
    expect(pager.pending()[0]!.next_at).toBe(morning);
  });
});

describe('Pager secrets', () => {
  it('redacts the prompt and screen before storing and sending', async () => {
    const r = await h.receiver();
    const { pager, db } = h.setup(webhookYaml(r));
    const key = 'sk-proj-abcdefghijklmnopqrstuvwx';
    pager.page(
      samplePage({
        prompt: `Export OPENAI_API_KEY=${key}?`,
        screen: ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA', '-----END RSA PRIVATE KEY-----', 'password=hunter2'],
      }),
    );
    await pager.tick();
    const sent = JSON.parse(r.hits[0]!.body) as Page;
    expect(sent.prompt).toBe('Export OPENAI_API_KEY=[redacted]?');
    expect(sent.screen).toEqual(['[redacted]', 'password=[redacted]']);
    const stored = JSON.stringify(db.prepare('SELECT * FROM notify_outbox').all());
    for (const secret of [key, 'hunter2', 'MIIEpAIBAAKCAQEA']) {
      expect(r.hits[0]!.body).not.toContain(secret);
      expect(stored).not.toContain(secret);
    }
  });

  it('reads env: and file: credentials at send time, never storing them', async () => {
    const r = await h.receiver();
    const tokenFile = h.fresh('token');
    const env: NodeJS.ProcessEnv = {};
    const { pager, advance, db } = h.setup(
      webhookYaml(r, `, headers: { X-Token: "env:HOOK_TOKEN", X-Other: "file:${tokenFile}", X-Plain: "nightshift" }`),
      { env },
    );
    pager.page(samplePage());
    await pager.tick();
    expect(pager.pending()[0]!.last_error).toBe('environment variable HOOK_TOKEN is not set');
    env.HOOK_TOKEN = 'hook-secret-1';
    advance(5 * SEC);
    await pager.tick();
    expect(pager.pending()[0]!.last_error).toMatch(/^cannot read credential file .*token \(ENOENT\)$/);
    writeFileSync(tokenFile, 'file-secret-2\n');
    advance(10 * SEC);
    expect(await pager.tick()).toMatchObject({ delivered: 1 });
    expect(r.hits[0]!.headers).toMatchObject({ 'x-token': 'hook-secret-1', 'x-other': 'file-secret-2', 'x-plain': 'nightshift' });
    const stored = JSON.stringify(db.prepare('SELECT * FROM notify_outbox').all());
    expect(stored).not.toContain('hook-secret-1');
    expect(stored).not.toContain('file-secret-2');
  });
});
