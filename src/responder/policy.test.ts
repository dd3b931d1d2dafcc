import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../rules/policy-file.js';
import { InputError } from '../util/errors.js';
import { checkPackage, jobRegistry } from './policy.js';

const policy = parsePolicy(
  `policy: 1
allow:
  - { ecosystem: npm, name: cowsay, version: "^1.6.0" }
  - { ecosystem: npm, name: left-pad }
  - { ecosystem: pip, name: Requests_OAuthlib }
registries:
  npm: ["https://registry.npmjs.org"]
`,
  'p.yaml',
);
const pkg = (name: string, version: string | null = null, ecosystem: 'npm' | 'pip' = 'npm', source: string | null = null) => ({ ecosystem, name, version, source });
const NPM = 'https://registry.npmjs.org/';

describe('checkPackage', () => {
  it('allows a listed package within its range from an allowed registry', () => {
    expect(checkPackage(policy, pkg('cowsay', '1.6.0'), NPM)).toEqual({ ok: true });
    expect(checkPackage(policy, pkg('left-pad'), NPM)).toEqual({ ok: true });
  });
  it('refuses an unlisted package, naming it', () => {
    expect(checkPackage(policy, pkg('evil'), NPM)).toEqual({ ok: false, why: 'npm:evil is not on the allow-list' });
  });
  it('refuses a version outside the range, and an unpinned one when a range is set', () => {
    expect(checkPackage(policy, pkg('cowsay', '2.0.0'), NPM).ok).toBe(false);
    expect(checkPackage(policy, pkg('cowsay'), NPM)).toMatchObject({ ok: false, why: expect.stringContaining('no pinned version') });
  });
  it('refuses another registry and a non-registry source', () => {
    expect(checkPackage(policy, pkg('left-pad'), 'https://evil.example/').ok).toBe(false);
    expect(checkPackage(policy, pkg('left-pad', null, 'npm', 'git+https://x/y'), NPM).ok).toBe(false);
  });
  it('compares pip names the PEP 503 way', () => {
    expect(checkPackage(policy, pkg('requests-oauthlib', null, 'pip'), 'https://pypi.org/simple/')).toEqual({ ok: true });
  });
  it('reads the job registry from its environment', () => {
    expect(jobRegistry('npm', { npm_config_registry: 'https://r.example/' })).toBe('https://r.example/');
    expect(jobRegistry('npm', {})).toBe(NPM);
  });
});

describe('policy file errors name file, line and reason', () => {
  const bad = (text: string) => {
    try {
      parsePolicy(text, 'policy.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return String(e);
    }
    throw new Error('expected an error');
  };
  it('unknown key', () => {
    expect(bad('policy: 1\nallow: []\nalow_all: true\n')).toMatch(/^policy\.yaml:3: .*alow_all/);
  });
  it('bad version range', () => {
    expect(bad('policy: 1\nallow:\n  - ecosystem: npm\n    name: x\n    version: "^^1"\n')).toMatch(/^policy\.yaml:5: allow\.0\.version "\^\^1" is not a valid version range/);
  });
  it('unknown ecosystem', () => {
    expect(bad('policy: 1\nallow:\n  - { ecosystem: brew, name: x }\n')).toMatch(/^policy\.yaml:3: allow\.0\.ecosystem/);
  });
  it('a key unknown inside an entry', () => {
    expect(bad('policy: 1\nallow:\n  - ecosystem: npm\n    name: x\n    any: true\n')).toMatch(/^policy\.yaml:5: .*any/);
  });
  it('on_unanswered can only decline, after a positive duration', () => {
    expect(bad('policy: 1\non_unanswered: { after: 2h, do: answer }\n')).toBe('policy.yaml:2: on_unanswered.do: do "answer": on_unanswered can only decline');
    expect(bad('policy: 1\non_unanswered:\n  after: 0s\n  do: decline\n')).toBe('policy.yaml:3: on_unanswered.after: after "0s" must be above zero');
    expect(bad('policy: 1\non_unanswered: { after: 2h }\n')).toMatch(/^policy\.yaml:2: on_unanswered\.do: /);
  });
});

describe('on_unanswered in a policy file (issue 11.7)', () => {
  it('is read as afterMs; absent, the policy has none', () => {
    expect(parsePolicy('policy: 1\non_unanswered: { after: 2h, do: decline }\n', 'p.yaml').onUnanswered).toEqual({ afterMs: 2 * 3_600_000, do: 'decline' });
    expect(parsePolicy('policy: 1\n', 'p.yaml')).not.toHaveProperty('onUnanswered');
  });
});
