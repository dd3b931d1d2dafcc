/** notify.public_url and notify.page_person (issue 11.6): where page links point, who they sign in as. */
import { describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { parseNotifyConfig } from './config.js';

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
