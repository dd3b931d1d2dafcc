import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseNotifyConfig } from './config.js';
import { credentialWarnings, describeNotifiers, startupReport } from './startup.js';

const dir = mkdtempSync(join(tmpdir(), 'nightshift-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(dir, 'config.yaml');
const cfg = (notifiers: string[]) => parseNotifyConfig(`notify:\n  notifiers:\n${notifiers.map((n) => `    - ${n}\n`).join('')}`, FILE);

describe('start-up report', () => {
  it('names the notifiers that loaded: kind, and the name when it is not the kind', () => {
    expect(describeNotifiers(cfg(['{ kind: webhook, url: "http://a", name: hook1 }', '{ kind: ntfy, url: "http://b" }']))).toBe('webhook(hook1), ntfy');
    expect(describeNotifiers(cfg(['{ kind: webhook, url: "http://a" }', '{ kind: webhook, url: "http://b" }']))).toBe('webhook(webhook-1), webhook(webhook-2)');
    expect(describeNotifiers(parseNotifyConfig('', FILE))).toBe('none — nobody will be paged');
  });

  it('warns about every env:/file: credential that cannot be resolved now, never printing a value', async () => {
    writeFileSync(join(dir, 'empty-token'), '');
    writeFileSync(join(dir, 'good-token'), 'tk_secret_value\n');
    const c = cfg([
      '{ kind: webhook, url: "env:UNSET_VAR" }',
      '{ kind: webhook, name: hdr, url: "http://a", headers: { Authorization: "env:HOOK_TOKEN", X-Other: "env:SET_TOKEN" } }',
      '{ kind: ntfy, url: "env:NOT_A_URL", token: "file:missing-token" }',
      '{ kind: ntfy, name: n2, url: "http://b", token: "file:empty-token" }',
      '{ kind: ntfy, name: n3, url: "http://b", token: "file:good-token" }',
      '{ kind: slack, url: "env:SLACK_URL" }',
      '{ kind: command, argv: [notify-send] }',
    ]);
    const env = { SET_TOKEN: 'abc', NOT_A_URL: 'sekrit-not-url', SLACK_URL: 'https://hooks.slack.com/services/x', HOOK_TOKEN: '' };
    const warnings = await credentialWarnings(c, env);
    expect(warnings).toEqual([
      'notifier webhook: env:UNSET_VAR is not set',
      'notifier hdr: env:HOOK_TOKEN is not set',
      'notifier ntfy: env:NOT_A_URL is not an http(s) URL',
      `notifier ntfy: cannot read credential file ${join(dir, 'missing-token')} (ENOENT)`,
      `notifier n2: credential file ${join(dir, 'empty-token')} is empty`,
    ]);
    expect(warnings.join('\n')).not.toContain('sekrit');
    expect(await startupReport(parseNotifyConfig('', FILE), {})).toEqual({ notifiers: 'none — nobody will be paged', warnings: [] });
  });
});
