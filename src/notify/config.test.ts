import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { loadNotifyConfig, PAGE_SEND_KINDS, parseNotifyConfig } from './config.js';

const FILE = '/etc/nightshift/config.yaml';

function problem(yaml: string): string {
  try {
    parseNotifyConfig(yaml, FILE);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return String(e);
  }
  throw new Error('expected the config to be refused');
}

describe('parseNotifyConfig', () => {
  it('reads the documented example', () => {
    const cfg = parseNotifyConfig(
      `# paging
pages:
  send: [prompt, hung, budget, prompt]
notify:
  repage_after: 30m
  quiet_hours: { start: "22:00", end: "07:00", urgent: [prompt, budget] }
  notifiers:
    - { kind: webhook, url: "http://127.0.0.1:9/hook", headers: { X-Token: "env:HOOK_TOKEN", Accept: "application/json" } }
    - { kind: ntfy, url: "https://ntfy.sh/my-topic", token: "file:secrets/ntfy" }
    - { kind: slack, url: "env:SLACK_WEBHOOK_URL" }
    - { kind: command, argv: ["notify-send", "nightshift"] }
`,
      FILE,
    );
    expect(cfg).toEqual({
      repageAfterMs: 30 * 60_000,
      quietHours: { start: 22 * 60, end: 7 * 60, urgent: ['prompt', 'budget'] },
      notifiers: [
        {
          kind: 'webhook',
          name: 'webhook',
          url: { literal: 'http://127.0.0.1:9/hook' },
          headers: { 'X-Token': { env: 'HOOK_TOKEN' }, Accept: { literal: 'application/json' } },
        },
        // A relative file: path is taken from the config file's folder.
        { kind: 'ntfy', name: 'ntfy', url: { literal: 'https://ntfy.sh/my-topic' }, token: { file: '/etc/nightshift/secrets/ntfy' } },
        { kind: 'slack', name: 'slack', url: { env: 'SLACK_WEBHOOK_URL' } },
        { kind: 'command', name: 'command', argv: ['notify-send', 'nightshift'] },
      ],
      pageKinds: ['prompt', 'hung', 'budget'],
      links: null,
      digestAt: null,
      maxBlockedMs: 2 * 60 * 60_000,
      web: { trustedProxies: [], showEnv: false },
    });
  });

  it('web: trusted_proxies (addresses or CIDR ranges, none by default) and show_env; a bad address is refused with file:line and the value', () => {
    expect(parseNotifyConfig('web:\n  trusted_proxies: [127.0.0.1, "::1", 10.0.0.0/8]\n  show_env: true\n', FILE).web).toEqual({ trustedProxies: ['127.0.0.1', '::1', '10.0.0.0/8'], showEnv: true });
    expect(parseNotifyConfig('notify: {}\n', FILE).web).toEqual({ trustedProxies: [], showEnv: false });
    expect(problem('web:\n  trusted_proxies:\n    - 127.0.0.1\n    - loopback\n')).toBe(`${FILE}:4: web.trusted_proxies.1: "loopback" is not an IP address or CIDR range; expected e.g. 127.0.0.1 or 10.0.0.0/8`);
    expect(problem('web:\n  trusted_proxies: [10.0.0.0/33]\n')).toMatch(/^.*:2: web.trusted_proxies.0: "10.0.0.0\/33" is not an IP address/);
    expect(problem('web:\n  show_env: yes please\n')).toMatch(/:2: web.show_env: /);
  });

  it('digest_at: a local time of day, in minutes after midnight; a bad one is refused with file:line and the value', () => {
    expect(parseNotifyConfig('notify:\n  digest_at: "07:30"\n', FILE).digestAt).toBe(7 * 60 + 30);
    expect(problem('notify:\n  repage_after: 1h\n  digest_at: "7.30am"\n')).toBe(`${FILE}:3: notify.digest_at: "7.30am" is not a local time of day; expected one like "22:00"`);
  });

  it('jobs.max_blocked: the ceiling on waiting for jobs without their own; 2h by default, off turns it off', () => {
    expect(parseNotifyConfig('jobs:\n  max_blocked: 90m\n', FILE).maxBlockedMs).toBe(90 * 60_000);
    expect(parseNotifyConfig('jobs:\n  max_blocked: off\n', FILE).maxBlockedMs).toBeNull();
    expect(parseNotifyConfig('notify: {}\n', FILE).maxBlockedMs).toBe(2 * 60 * 60_000);
    expect(problem('jobs:\n  max_blocked: 0s\n')).toBe(`${FILE}:2: jobs.max_blocked: expected a duration above zero, or off`);
  });

  it('defaults: 30m re-page, no quiet hours, nobody paged; off disables re-paging', () => {
    expect(parseNotifyConfig('', FILE)).toEqual({ repageAfterMs: 30 * 60_000, quietHours: null, notifiers: [], pageKinds: [...PAGE_SEND_KINDS], links: null, digestAt: null, maxBlockedMs: 2 * 60 * 60_000, web: { trustedProxies: [], showEnv: false } });
    expect(parseNotifyConfig('# nothing yet\n', FILE).notifiers).toEqual([]);
    // pages: alone, or without send: every kind is sent by default.
    expect(parseNotifyConfig('pages:\n  send: [disk, interrupted]\n', FILE)).toMatchObject({ notifiers: [], pageKinds: ['disk', 'interrupted'] });
    expect(parseNotifyConfig('pages: {}\nnotify:\n  notifiers: []\n', FILE).pageKinds).toEqual([...PAGE_SEND_KINDS]);
    expect(PAGE_SEND_KINDS).toEqual(['prompt', 'unknown-prompt', 'hung', 'budget', 'other', 'probe', 'failed', 'start-failed', 'dependency-failed', 'interrupted', 'lost', 'disk', 'parked', 'digest']);
    expect(parseNotifyConfig('notify:\n  repage_after: off\n', FILE).repageAfterMs).toBeNull();
    expect(parseNotifyConfig('notify:\n  repage_after: 90\n', FILE).repageAfterMs).toBe(90_000);
  });

  it('names notifiers by kind, numbering kinds that repeat', () => {
    const cfg = parseNotifyConfig(
      'notify:\n  notifiers:\n    - { kind: webhook, url: "http://a" }\n    - { kind: webhook, url: "http://b" }\n    - { kind: webhook, url: "http://c", name: ops }\n',
      FILE,
    );
    expect(cfg.notifiers.map((n) => n.name)).toEqual(['webhook-1', 'webhook-2', 'ops']);
  });

  it.each<[string, string, string]>([
    ['an unknown key', 'notify:\n  repage_after: 5m\n  repage: 1m\n', `${FILE}:3: notify.repage: Unrecognized key: "repage"`],
    ['a misspelt section (issue 8)', '# paging\nnotifyy:\n  notifiers: []\n', `${FILE}:2: notifyy: unknown section; config.yaml has notify:, pages:, jobs: and web:`],
    ['any other top-level section', 'notify: {}\ndaemon: { other: section }\n', `${FILE}:2: daemon: unknown section; config.yaml has notify:, pages:, jobs: and web:`],
    ['an unknown key under pages', 'pages:\n  sendd: [prompt]\n', `${FILE}:2: pages.sendd: Unrecognized key: "sendd"`],
    [
      'an unknown page kind',
      'pages:\n  send:\n    - prompt\n    - fire\n',
      `${FILE}:4: pages.send.1: "fire" is not a page kind; expected one of prompt, unknown-prompt, hung, budget, other, probe, failed, start-failed, dependency-failed, interrupted, lost, disk, parked, digest`,
    ],
    ['an unknown quiet-hours key', 'notify:\n  quiet_hours: { start: "22:00", end: "07:00", urgnt: [] }\n', `${FILE}:2: notify.quiet_hours.urgnt: Unrecognized key: "urgnt"`],
    [
      'an unknown notifier key',
      'notify:\n  notifiers:\n    - kind: webhook\n      url: http://x\n      method: PUT\n',
      `${FILE}:5: notify.notifiers.0.method: Unrecognized key: "method"`,
    ],
    [
      'a bad duration',
      'notify:\n  repage_after: 30 minutes\n',
      `${FILE}:2: notify.repage_after: duration "30 minutes" is not a duration; expected e.g. 90s, 3m, 1.5s, 6h, 250ms`,
    ],
    ['a zero duration', 'notify:\n  repage_after: 0s\n', `${FILE}:2: notify.repage_after: expected a duration above zero, or off`],
    [
      'a literal secret in headers',
      'notify:\n  notifiers:\n    - kind: webhook\n      url: http://x\n      headers:\n        Accept: json\n        X-Token: abc123\n',
      `${FILE}:7: notify.notifiers.0.headers.X-Token: a literal secret in header X-Token is refused: write env:NAME or file:PATH and keep the secret there`,
    ],
    [
      'a secret-looking value under an innocent header name',
      'notify:\n  notifiers:\n    - kind: webhook\n      url: http://x\n      headers: { X-Api: "Bearer abcdefgh12345" }\n',
      `${FILE}:5: notify.notifiers.0.headers.X-Api: a literal secret in header X-Api is refused: write env:NAME or file:PATH and keep the secret there`,
    ],
    [
      'a literal ntfy token',
      'notify:\n  notifiers:\n    - kind: ntfy\n      url: https://ntfy.sh/t\n      token: tk_abc\n',
      `${FILE}:5: notify.notifiers.0.token: token is a secret: write env:NAME or file:PATH and keep the secret there`,
    ],
    [
      'a literal Slack URL',
      'notify:\n  notifiers:\n    - kind: slack\n      url: https://hooks.slack.com/services/T/B/x\n',
      `${FILE}:4: notify.notifiers.0.url: a Slack webhook URL is a secret: write env:NAME or file:PATH and keep the secret there`,
    ],
    [
      'a URL with a password in it',
      'notify:\n  notifiers:\n    - { kind: webhook, url: "https://bob:pw123@example.com/hook" }\n',
      `${FILE}:3: notify.notifiers.0.url: the URL holds a credential: write env:NAME or file:PATH and keep the secret there`,
    ],
    ['a URL that is not http', 'notify:\n  notifiers:\n    - { kind: webhook, url: "ftp://x" }\n', `${FILE}:3: notify.notifiers.0.url: "ftp://x" is not an http(s) URL`],
    [
      'a bad env: name',
      'notify:\n  notifiers:\n    - { kind: slack, url: "env:SLACK-URL" }\n',
      `${FILE}:3: notify.notifiers.0.url: "env:SLACK-URL": expected env:NAME with NAME of letters, digits and _`,
    ],
    [
      'a bad kind',
      'notify:\n  notifiers:\n    - kind: email\n      to: me@example.com\n',
      `${FILE}:3: notify.notifiers.0.kind: expected kind to be one of webhook, ntfy, slack, command`,
    ],
    [
      'a bad quiet-hours time',
      'notify:\n  quiet_hours:\n    start: "22:00"\n    end: "7am"\n',
      `${FILE}:4: notify.quiet_hours.end: "7am" is not a local time of day; expected one like "22:00"`,
    ],
    [
      'an unknown urgent kind',
      'notify:\n  quiet_hours: { start: "22:00", end: "07:00", urgent: [fire] }\n',
      `${FILE}:2: notify.quiet_hours.urgent.0: Invalid option: expected one of "prompt"|"unknown-prompt"|"hung"|"budget"|"other"|"probe"|"failed"|"start-failed"|"dependency-failed"|"interrupted"|"lost"|"disk"|"parked"|"digest"`,
    ],
    ['an empty argv', 'notify:\n  notifiers:\n    - { kind: command, argv: [] }\n', `${FILE}:3: notify.notifiers.0.argv: expected the command and its arguments`],
    [
      'two notifiers with one name',
      'notify:\n  notifiers:\n    - { kind: webhook, url: "http://a", name: ops }\n    - { kind: ntfy, url: "http://b", name: ops }\n',
      `${FILE}:4: notify.notifiers.1.name: two notifiers are called "ops"; give each its own name`,
    ],
    ['broken YAML', 'notify:\n  notifiers: [\n', `${FILE}:3: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`],
  ])('refuses %s with file:line', (_what, yaml, expected) => {
    expect(problem(yaml)).toBe(expected);
  });
});

describe('loadNotifyConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nightshift-notify-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('treats a missing default file as no paging, but a missing named file as an error', async () => {
    expect((await loadNotifyConfig(join(dir, 'config.yaml'))).notifiers).toEqual([]);
    await expect(loadNotifyConfig(join(dir, 'nope.yaml'), { mustExist: true })).rejects.toThrow(/cannot read config/);
  });

  it('reads the file', async () => {
    writeFileSync(join(dir, 'config.yaml'), 'notify:\n  notifiers:\n    - { kind: command, argv: [notify-send, hi] }\n');
    expect((await loadNotifyConfig(join(dir, 'config.yaml'))).notifiers).toEqual([{ kind: 'command', name: 'command', argv: ['notify-send', 'hi'] }]);
  });
});

// Issue 11.6: where page links point, who they sign in as.
describe('notify.public_url', () => {
  it('is normalised (no trailing slash, a sub-path kept); page_person defaults to on-call', () => {
    expect(parseNotifyConfig('notify:\n  public_url: https://ns.example.com/\n', FILE).links).toEqual({ publicUrl: 'https://ns.example.com', pagePerson: 'on-call' });
    expect(parseNotifyConfig('notify:\n  public_url: "https://Example.com/night/shift//"\n  page_person: ops-phone\n', FILE).links).toEqual({
      publicUrl: 'https://example.com/night/shift',
      pagePerson: 'ops-phone',
    });
    // Loopback may be plain http: the link never leaves the machine.
    expect(parseNotifyConfig('notify:\n  public_url: http://127.0.0.1:8080\n', FILE).links?.publicUrl).toBe('http://127.0.0.1:8080');
    expect(parseNotifyConfig('notify:\n  public_url: http://localhost:8080\n', FILE).links?.publicUrl).toBe('http://localhost:8080');
    expect(parseNotifyConfig('notify:\n  notifiers: []\n', FILE).links).toBeNull();
  });

  it.each<[string, string, string]>([
    ['not a URL', 'notify:\n  public_url: ns.example.com\n', `${FILE}:2: notify.public_url: "ns.example.com" is not a URL; expected e.g. https://nightshift.example.com`],
    ['not http(s)', 'notify:\n  public_url: ftp://ns.example.com\n', `${FILE}:2: notify.public_url: "ftp://ns.example.com" is not an http(s) URL`],
    [
      'plain http to another machine',
      'notify:\n  repage_after: 5m\n  public_url: http://ns.example.com\n',
      `${FILE}:3: notify.public_url: "http://ns.example.com" is plain http to another machine: page links carry login codes; use https (a reverse proxy, README "Web view")`,
    ],
    ['a password in it', 'notify:\n  public_url: https://bob:pw@ns.example.com\n', `${FILE}:2: notify.public_url: "https://bob:pw@ns.example.com" holds a user or password; page links must not`],
    ['a query', 'notify:\n  public_url: https://ns.example.com/?a=1\n', `${FILE}:2: notify.public_url: "https://ns.example.com/?a=1" has a query or fragment; give the address only`],
    ['a number', 'notify:\n  public_url: 8080\n', `${FILE}:2: notify.public_url: Invalid input: expected string, received number`],
    [
      'a bad page_person',
      'notify:\n  public_url: https://ns.example.com\n  page_person: "on call"\n',
      `${FILE}:3: notify.page_person: expected a person's name of letters, digits, . _ - (as \`nightshift web token NAME\`)`,
    ],
    [
      'page_person without public_url',
      'notify:\n  notifiers: []\n  page_person: ops\n',
      `${FILE}:3: notify.page_person: it names who page links sign in as, and there are no links without notify.public_url`,
    ],
    ['a misspelt key', 'notify:\n  public_uri: https://ns.example.com\n', `${FILE}:2: notify.public_uri: Unrecognized key: "public_uri"`],
  ])('refuses %s with file:line', (_what, yaml, expected) => {
    expect(problem(yaml)).toBe(expected);
  });
});
