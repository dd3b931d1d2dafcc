import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { loadProbeConfig, parseProbeConfig } from './profiles-file.js';

const SHIPPED = new URL('../../rules/probes.yaml', import.meta.url);

/** A minimal valid file; `extra` is appended, `profiles` replaces the profiles block. */
function file(extra = '', profiles = 'profiles:\n  default:\n    window: 8\n    repeat: 3\n    fail_repeat: 3\n    no_progress: 8\n    alternation: 6\n    max_steps: 80\n    max_tokens: 1000\n') {
  return `version: 1\n${profiles}shell:\n  command_keys: [command]\nannounce: {}\nclaims:\n  patterns: ['done']\n${extra}`;
}

function errorOf(text: string): InputError {
  try {
    parseProbeConfig(text, 'p.yaml');
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('probe profiles file', () => {
  it('loads the shipped rules/probes.yaml with its three profiles', async () => {
    const config = await loadProbeConfig(SHIPPED.pathname);
    const pick = (name: string) => {
      const { rules: _rules, ...numbers } = config.profile(name);
      return numbers;
    };
    expect(pick('default')).toEqual({ name: 'default', window: 8, repeat: 3, failRepeat: 3, noProgress: 8, alternation: 6, maxSteps: 80, maxTokens: 6_000_000, onEscalate: 'auto', wrapUp: 0.85, verifyReminders: 2 });
    expect(pick('long-task')).toEqual({ name: 'long-task', window: 12, repeat: 4, failRepeat: 4, noProgress: 14, alternation: 8, maxSteps: 400, maxTokens: 40_000_000, onEscalate: 'auto', wrapUp: 0.85, verifyReminders: 2 });
    expect(pick('quick')).toMatchObject({ window: 6, repeat: 3, noProgress: 4, maxSteps: 12, failRepeat: 3 });
    expect(config.profile()).toBe(config.profile('default'));
    expect(config.rules.announce.maxChars).toBe(400);
  });

  it('on_escalate: inherited through extends, auto by default, a bad value named with its line', () => {
    const yaml = (extra: string) => file().replace(/(\n  default:\n)/, `$1    on_escalate: ${extra}\n`);
    const c = parseProbeConfig(yaml('pause'), 'p.yaml');
    expect(c.profile('default').onEscalate).toBe('pause');
    expect(parseProbeConfig(file(), 'p.yaml').profile('default').onEscalate).toBe('auto');
    const e = errorOf(yaml('stop-it'));
    expect(e.message).toMatch(/^profiles\.default\.on_escalate: .*stop-it|^profiles\.default\.on_escalate: .*interrupt/);
    expect(e.line).toBe(4);
  });

  it('parses a minimal file and fills announce defaults', () => {
    const c = parseProbeConfig(file(), 'p.yaml');
    expect(c.rules.announce).toMatchObject({ maxChars: 400, trailingColon: true, english: [] });
    expect(c.rules.claims.patterns[0]!.test('DONE')).toBe(true);
    expect(c.rules.claims).toMatchObject({ checks: [], passed: null });
  });

  it('compiles check narrations and the passed pattern case-insensitively, naming a bad one with its line', () => {
    const claims = "claims:\n  patterns: ['done']\n  checks: ['ran the tests']\n  passed: 'pass'\n";
    const c = parseProbeConfig(file().replace("claims:\n  patterns: ['done']\n", claims), 'p.yaml');
    expect(c.rules.claims.checks[0]!.test('Ran The Tests')).toBe(true);
    expect(c.rules.claims.passed!.test('PASSED')).toBe(true);
    const e = errorOf(file().replace("claims:\n  patterns: ['done']\n", claims.replace("'pass'", "'(pass'")));
    expect(e.message).toMatch(/^claims\.passed is not a valid regular expression/);
    expect(e.line).toBe(17);
  });

  it.each([
    ['an unknown top-level key', file('colour: red\n'), /colour/, 16],
    ['an unknown profile key', file('', 'profiles:\n  default:\n    window: 8\n    repaet: 3\n'), /repaet/, 5],
    ['a bad regex', file('tool_patterns:\n  - match: "(unclosed"\n    role: poll\n'), /tool_patterns\.0\.match is not a valid regular expression/, 17],
    ['a bad announce regex', file().replace('announce: {}', 'announce:\n  english:\n    - ok\n    - "[z-a]"'), /announce\.english\.1 is not a valid/, 16],
    ['an unknown role', file('tools:\n  Edit: writes\n'), /tools\.Edit/, 17],
    ['a stateful regex flag', file('tool_patterns:\n  - match: x\n    flags: g\n    role: poll\n'), /flags/, 18],
    ['repeat larger than window', file().replace('repeat: 3', 'repeat: 9'), /repeat: 9 repeats can never fit/, 5],
    ['a missing threshold', file('', 'profiles:\n  default:\n    window: 8\n'), /profiles\.default: missing repeat/, 3],
    ['an unknown parent', file().replace('  default:\n', '  quick:\n    extends: nope\n  default:\n'), /no profile named "nope"/, 4],
    ['a circle of parents', file().replace('  default:\n', '  a:\n    extends: b\n  b:\n    extends: a\n  default:\n'), /circle/, 6],
    ['no default profile', file().replace('  default:', '  other:'), /"default" profile is required/, 2],
    ['invalid YAML', 'version: 1\nprofiles: [\n', /not valid YAML/, 3],
  ])('rejects %s with file:line', (_what, text, message, line) => {
    const e = errorOf(text);
    expect(e.message).toMatch(message);
    expect(e.location).toBe(`p.yaml:${line}`);
  });

  it('wrap_up and verify_reminders: inherited through extends, defaults without them, off turns the wrap-up off, a bad share named with its line', () => {
    const with_ = (extra: string) => file().replace('profiles:\n', `profiles:\n  child:\n    extends: default\n    verify_reminders: 0\n`).replace(/(\n  default:\n)/, `$1${extra}`);
    expect(parseProbeConfig(file(), 'p.yaml').profile()).toMatchObject({ wrapUp: 0.85, verifyReminders: 2 });
    const c = parseProbeConfig(with_('    wrap_up: 90%\n'), 'p.yaml');
    expect(c.profile('child')).toMatchObject({ wrapUp: 0.9, verifyReminders: 0 });
    expect(parseProbeConfig(with_('    wrap_up: off\n'), 'p.yaml').profile('child').wrapUp).toBeNull();
    for (const bad of ['100%', '0%', '85', 'soon']) {
      const e = errorOf(with_(`    wrap_up: ${bad}\n`));
      expect(e.message).toMatch(/wrap_up.*1% to 99%, or off/);
      expect(e.location).toBe(`p.yaml:${with_('').split('\n').indexOf('  default:') + 2}`);
    }
    expect(errorOf(with_('    verify_reminders: 9\n')).message).toMatch(/verify_reminders/);
  });

  it('lets a profile extend another and override single values', () => {
    const c = parseProbeConfig(file().replace('profiles:\n', 'profiles:\n  wide:\n    extends: default\n    max_steps: 500\n'), 'p.yaml');
    expect(c.profile('wide')).toMatchObject({ window: 8, maxSteps: 500, maxTokens: 1000 });
  });

  it('names the file for an unknown profile and an unreadable file', async () => {
    expect(() => parseProbeConfig(file(), 'p.yaml').profile('nope')).toThrow(/unknown probe profile "nope"; known: default/);
    const dir = mkdtempSync(join(tmpdir(), 'probes-'));
    await expect(loadProbeConfig(join(dir, 'missing.yaml'))).rejects.toBeInstanceOf(InputError);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, file('extra: 1\n'));
    await expect(loadProbeConfig(bad)).rejects.toThrow(/extra/);
  });

  it('keeps the shipped file free of duplicate tool names (YAML would reject them)', () => {
    expect(() => parseProbeConfig(readFileSync(SHIPPED, 'utf8').replace('  Edit: write\n', '  Edit: write\n  Edit: read\n'), 'x.yaml')).toThrow(InputError);
  });
});
