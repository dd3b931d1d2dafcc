import { describe, expect, it } from 'vitest';
import { ntfyMessage, slackMessage, webhookMessage } from './format.js';
import { redact, redactPage, type Page } from './page.js';
import { summarize } from './page-words.js';

describe('redact', () => {
  const jwt =
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
  const cases: Array<[string, string, string]> = [
    ['OpenAI key', 'key sk-proj-Abc123def456ghi789jkl0 set', 'key [redacted] set'],
    ['Anthropic key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv', '[redacted]'],
    ['GitHub classic token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', '[redacted]'],
    ['GitHub OAuth token', 'push with gho_16C7e42F292c6912E7710c838347Ae178B4a', 'push with [redacted]'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop', '[redacted]'],
    ['Slack token', 'SLACK xoxb-1234567890-abcdefghij', 'SLACK [redacted]'],
    ['Slack webhook', 'post to https://hooks.slack.com/services/T00/B00/XXXX now', 'post to [redacted] now'],
    ['AWS access key id', 'id AKIAIOSFODNN7EXAMPLE ok', 'id [redacted] ok'],
    ['Bearer token', 'Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer [redacted]'],
    ['Basic credentials', 'Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic [redacted]'],
    ['password=', 'mysql --password=hunter2 -u root', 'mysql --password=[redacted] -u root'],
    ['DB_PASSWORD=', 'export DB_PASSWORD="s3cr3t!"', 'export DB_PASSWORD="[redacted]"'],
    ['token:', 'token: abcd1234', 'token: [redacted]'],
    ['JSON "api_key"', '{"api_key": "k-123"}', '{"api_key": "[redacted]"}'],
    ['secret_key=', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG', 'AWS_SECRET_ACCESS_KEY=[redacted]'],
    ['URL password', 'git clone https://bob:pa55w0rd@example.com/r.git', 'git clone https://bob:[redacted]@example.com/r.git'],
    ['JWT', `cookie ${jwt}`, 'cookie [redacted]'],
    ['MySQL -pSECRET', 'mysql -uapp -pcorrecthorse99 -h db shop', 'mysql -uapp -p[redacted] -h db shop'],
    ['mysqldump -pSECRET', 'mysqldump --all -ps3cret', 'mysqldump --all -p[redacted]'],
    [
      'PEM private key',
      'a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nz',
      'a\n[redacted]\nz',
    ],
    ['PEM body whose BEGIN line scrolled off', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n$', '[redacted]\n$'],
    ['PEM cut off by the screen', 'x\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'x\n[redacted]'],
  ];
  it.each(cases)('removes a %s', (_what, input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('leaves ordinary terminal text alone', () => {
    const text = [
      'Do you want to proceed? 1. Yes 2. No',
      'Basic authentication failed for user bob',
      'commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39',
      'Enter password:',
      'npm install left-pad@1.3.0',
      'mysql -p shop',
      'grep -pattern file',
    ].join('\n');
    expect(redact(text)).toBe(text);
  });

  it('redacts a page whole: a PEM block spanning screen lines collapses to one line', () => {
    const p = page({
      reason: 'needs token=abc123',
      prompt: 'Use ghp_abcdefghijklmnopqrstuvwxyz0123456789?',
      screen: ['$ cat id_rsa', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA', '-----END RSA PRIVATE KEY-----', '$'],
    });
    expect(redactPage(p)).toMatchObject({
      reason: 'needs token=[redacted]',
      prompt: 'Use [redacted]?',
      screen: ['$ cat id_rsa', '[redacted]', '$'],
    });
  });
});

describe('formatting', () => {
  it('summarizes in one line: what is asked, never "blocked (prompt: …)"', () => {
    expect(summarize(page())).toBe('nightshift: api wants to proceed');
    expect(summarize(page({ kind: 'other', reason: 'exited 1', prompt: 'api exited 1' }))).toBe('nightshift: api: api exited 1');
  });

  it('gives a webhook the page itself, plus the documented fields', () => {
    const body = JSON.parse(webhookMessage(page(), 1).body) as Record<string, unknown>;
    expect(body).toMatchObject(page());
    expect(body).toMatchObject({ version: 1, round: 1, title: 'api wants to proceed', question: 'Proceed?', risk: null, commands: ['nightshift answer api 1'], link: null, last_lines: [] });
  });

  it('gives ntfy text, falling back to the screen when there is no prompt, and marks reminders', () => {
    const m = ntfyMessage(page({ prompt: null, screen: ['line 1', 'line 2'] }), 3);
    expect(m.body).toBe('blocked · permission prompt\n\nline 1\nline 2\n\nRun: nightshift answer api 1');
    expect(m.headers).toMatchObject({ Title: 'Reminder 2: api waits for an answer', Priority: 'default' });
  });

  it('gives Slack escaped mrkdwn text and the same in blocks', () => {
    const { text, blocks } = JSON.parse(slackMessage(page({ prompt: 'run `rm -rf <dir>`?' }), 1).body) as { text: string; blocks: unknown[] };
    expect(text).toBe(
      [
        '*api wants to run `rm -rf &lt;dir&gt;`*',
        'blocked · permission prompt',
        '```run `rm -rf &lt;dir&gt;`?```',
        'Run: `nightshift answer api 1`',
      ].join('\n'),
    );
    expect(blocks).toHaveLength(4);
  });
});

function page(over: Partial<Page> = {}): Page {
  return {
    key: 'j:1',
    job: 'j',
    name: 'api',
    state: 'blocked',
    reason: 'permission prompt',
    kind: 'prompt',
    rule: null,
    class: null,
    prompt: 'Proceed?',
    screen: [],
    answer_command: 'nightshift answer api 1',
    time: '2025-01-01T00:00:00.000Z',
    urgent: false,
    ...over,
  };
}
