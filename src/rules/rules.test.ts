import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchPrompt, matchPrompts } from '../core/prompt-match.js';
import { InputError } from '../util/errors.js';
import { shippedRules, RULES_DIR } from '../../test/helpers/rules.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { loadRules, parseRuleFile } from './load.js';

const screenFile = (name: string) => readFileSync(new URL(`../../test/fixtures/screens/${name}`, import.meta.url), 'utf8');
const ruleOf = (text: string, cursor?: 'below') =>
  matchPrompt(snapshotOf(text, cursor ? { cursor } : {}), shippedRules.prompts)?.rule.id;

describe('shipped prompt rules', () => {
  it.each([
    ['claude-2.1.112-bash-permission.txt', 'claude-code-permission'],
    ['claude-2.1.112-trust-workspace.txt', 'claude-code-trust'],
    ['claude-2.1.332-bash-permission.txt', 'claude-code-permission'],
    ['claude-2.1.332-trust-workspace.txt', 'claude-code-trust-unnumbered'],
    ['codex-0.171-approval.txt', 'codex-approval'],
    ['gemini-0.61.0-shell-approval.txt', 'gemini-approval'],
    ['gemini-0.61.0-shell-approval-under-warning.txt', 'gemini-approval'],
    ['gemini-0.61.0-trust-folder.txt', 'gemini-trust'],
  ])('recognise the real agent dialog in %s', (file, id) => {
    expect(ruleOf(screenFile(file), 'below')).toBe(id);
  });

  // Claude Code 2.1.332 in its default auto mode: a notice, no dialog (the command ran unasked).
  it('see no prompt in the real auto-mode notice of claude-2.1.332-auto-mode-notice.txt', () => {
    expect(ruleOf(screenFile('claude-2.1.332-auto-mode-notice.txt'), 'below')).toBeUndefined();
  });

  it.each([
    ['Need to install the following packages:\ncowsay@1.6.0\nOk to proceed? (y) ', 'npx-install'],
    ['The following NEW packages will be installed:\n  jq libjq1\n0 upgraded, 2 newly installed.\nDo you want to continue? [Y/n] ', 'apt-install'],
    ['The following packages will be REMOVED:\n  nginx\nThe following NEW packages will be installed:\n  apache2\nDo you want to continue? [Y/n] ', 'apt-remove'],
    ['Found existing installation: requests 2.31.0\nUninstalling requests-2.31.0:\n  Would remove:\n    /x\nProceed (Y/n)? ', 'pip-uninstall'],
    ["rm: remove regular file 'notes.txt'? ", 'rm-interactive'],
    ["rm: descend into directory 'build'? ", 'rm-interactive'],
    ['rm: remove 3 arguments recursively? ', 'rm-interactive'],
    ["cp: overwrite 'b.txt'? ", 'coreutils-overwrite'],
    ['Add file to the chat? (Y)es/(N)o/(D)on\'t ask again [Yes]: ', 'aider-confirm'],
    ['Proceed with the migration? (y/N) ', 'generic-yes-no'],
    ['Continue? [Y/n] ', 'generic-yes-no'],
    ['Press Enter to continue...', 'press-enter'],
  ])('match %j as %s', (text, id) => {
    expect(ruleOf(text)).toBe(id);
  });

  it('takes the riskier class when two rules match (apt REMOVED beats install)', () => {
    const snap = snapshotOf('The following packages will be REMOVED:\n  nginx\nThe following NEW packages will be installed:\n  apache2\nDo you want to continue? [Y/n] ');
    expect(matchPrompts(snap, shippedRules.prompts).map((m) => m.rule.class)).toEqual(['destructive', 'dependency', 'confirm']) // generic [Y/n] last;
  });

  it.each([
    ['a y/n prompt quoted in a log line, followed by more output', 'log: user answered Continue? [Y/n]\nbuilding...', undefined],
    ['a prompt echoed with a trailing newline', 'Ok to proceed? (y)', 'below'],
    ['an ordinary numbered list in a reply', 'Here is the plan:\n1. Yes, refactor\n2. No tests', undefined],
  ] as const)('do not match %s', (_why, text, cursor) => {
    expect(ruleOf(text, cursor)).toBeUndefined();
  });

  it('never has an answer that widens permissions', () => {
    for (const r of shippedRules.prompts) expect(r.answer).not.toContain('2');
  });
});

describe('rule file errors name file, line and reason', () => {
  const bad = (text: string) => {
    try {
      parseRuleFile(text, 'rules/bad.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return String(e);
    }
    throw new Error('expected an error');
  };

  it('YAML syntax error', () => {
    expect(bad('version: 1\nprompts:\n  - id: x\n    match: [unclosed\n')).toMatch(/^rules\/bad\.yaml:\d+: not valid YAML/);
  });
  it('regex that does not compile', () => {
    const msg = bad('version: 1\nprompts:\n  - id: x\n    class: confirm\n    answer: [y]\n    match: "(oops"\n');
    expect(msg).toMatch(/^rules\/bad\.yaml:6: prompts\.0\.match is not a valid regular expression/);
  });
  it('unknown class, with the line of the value', () => {
    const msg = bad('version: 1\nprompts:\n  - id: x\n    class: scary\n    answer: [y]\n    match: "x"\n');
    expect(msg).toMatch(/^rules\/bad\.yaml:4: prompts\.0\.class: /);
  });
  it('unknown key, with the line of the key', () => {
    expect(bad('version: 1\nprompts:\n  - id: x\n    class: confirm\n    answer: [y]\n    match: "x"\n    anwser: [n]\n')).toMatch(
      /^rules\/bad\.yaml:7: .*anwser/,
    );
  });
  it('unknown answer key name', () => {
    expect(bad('version: 1\nprompts:\n  - id: x\n    class: confirm\n    match: "x"\n    answer:\n      - y\n      - entr\n')).toMatch(
      /^rules\/bad\.yaml:8: unknown key "entr"/,
    );
  });
  it('missing version', () => {
    expect(bad('prompts: []\n')).toMatch(/^rules\/bad\.yaml:1: version: /);
  });
  it('duplicate ids across files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ns-rules-'));
    const rule = 'version: 1\nprompts:\n  - id: same\n    class: confirm\n    match: "x"\n    answer: [y]\n';
    writeFileSync(join(dir, 'a.yaml'), rule);
    writeFileSync(join(dir, 'b.yaml'), rule);
    await expect(loadRules(dir)).rejects.toThrow(/duplicate rule id "same" \(first defined at .*a\.yaml:3\)/);
  });
  it('the shipped rules directory loads', async () => {
    const set = await loadRules(RULES_DIR);
    expect(set.prompts.length).toBeGreaterThanOrEqual(14);
    expect(set.questions.length).toBeGreaterThanOrEqual(4);
  });
});
