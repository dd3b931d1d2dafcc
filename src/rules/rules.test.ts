import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchPrompt, matchPrompts, tailWindow } from '../core/prompt-match.js';
import { lastNonBlankRow } from '../core/screen-snapshot.js';
import { RISK_CONTEXT_ROWS } from '../responder/responder.js';
import { commandFromPrompt } from '../responder/packages.js';
import { InputError } from '../util/errors.js';
import { shippedRules, RULES_DIR } from '../../test/helpers/rules.js';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { loadRules, parseRuleFile } from './load.js';

const screenFile = (name: string) => readFileSync(new URL(`../../test/fixtures/screens/${name}`, import.meta.url), 'utf8');
/** As the responder reads it: from the rows above the dialog too, not only the matched ones. */
const commandOf = (text: string) => {
  const snap = snapshotOf(text, { cursor: 'below' });
  const m = matchPrompt(snap, shippedRules.prompts);
  const context = tailWindow(snap.rows, lastNonBlankRow(snap.rows), Math.max(m?.rule.lines ?? 0, RISK_CONTEXT_ROWS)).text;
  return m?.rule.extract ? commandFromPrompt(m.rule.extract, context) : undefined;
};
const ruleOf = (text: string, cursor?: 'below') =>
  matchPrompt(snapshotOf(text, cursor ? { cursor } : {}), shippedRules.prompts)?.rule.id;

describe('shipped prompt rules', () => {
  it.each([
    ['claude-2.1.112-bash-permission.txt', 'claude-code-permission'],
    ['claude-2.1.112-trust-workspace.txt', 'claude-code-trust'],
    ['claude-2.1.332-bash-permission.txt', 'claude-code-permission'],
    ['claude-2.1.332-trust-workspace.txt', 'claude-code-trust-unnumbered'],
    ['codex-0.171-approval.txt', 'codex-approval'],
    ['copilot-1.0.102-shell-permission.txt', 'copilot-permission'],
    ['copilot-1.0.102-trust.txt', 'copilot-trust'],
    ['opencode-1.18.33-bash-permission.txt', 'opencode-permission'],
    ['qwen-0.24.4-shell-permission.txt', 'qwen-code-approval'],
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
    ['copilot-1.0.102-shell-permission.txt', 'touch nightshift-probe.txt'],
    ['opencode-1.18.33-bash-permission.txt', 'touch nightshift-probe.txt'],
    ['qwen-0.24.4-shell-permission.txt', 'touch nightshift-probe.txt'],
  ])('read the command the real dialog in %s asks to run', (file, cmd) => {
    expect(commandOf(screenFile(file))).toBe(cmd);
  });

  // No CLI to run here (see rules/prompts.yaml): these screens are written
  // by hand, Kimi's from the render() of kimi-cli 1.49.0's approval panel
  // (Rich rounded box, "approval" title), Cursor's from the wording in the
  // field notes and other tools' published captures.
  it.each([
    ['kimi-1.49-synthetic-shell-approval.txt', 'kimi-approval'],
    ['cursor-synthetic-run-command.txt', 'cursor-agent-approval'],
    ['cursor-synthetic-write-file.txt', 'cursor-agent-approval'],
  ])('recognise the synthetic dialog in %s', (file, id) => {
    expect(ruleOf(screenFile(file), 'below')).toBe(id);
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
    ['prose quoting the Copilot options', 'Copilot asks: Do you want to run this command?\nPick 1. Yes or 3. No, and tell Copilot what to do differently.', 'below'],
    ['a Copilot dialog that output has scrolled past', `${screenFile('copilot-1.0.102-shell-permission.txt').trimEnd()}\n ● Operation cancelled by user\n ● Running tests\n ● Done`, 'below'],
    ['prose quoting the opencode options', 'The prompt reads △ Permission required\nwith Allow once   Allow always   Reject.\nI chose Reject.\nThen it stopped.\nok', 'below'],
    ['prose quoting the Qwen options', "Qwen asked: Allow execution of: 'rm'?\n1. Yes, allow once\n4. No, suggest changes (esc)", 'below'],
    ['prose quoting the Cursor options', 'Cursor shows "Run this command?" with Run (once) (y) and Skip (esc or n).', 'below'],
    ['prose quoting the Kimi options', 'It said Shell is requesting approval to run command: ls\n→ [1] Approve once\nand then 1/2/3/4 choose at the bottom.', 'below'],
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

describe('shipped watch modes (parked:)', () => {
  const parkedOf = (name: string) => matchPrompt(snapshotOf(screenFile(name).trimEnd(), { cursor: 'below' }), shippedRules.parked)?.rule;

  it.each([
    ['vitest-4.1.12-watch.txt', 'vitest-watch', 'vitest'],
    ['tsc-5.9.3-watch.txt', 'tsc-watch', 'tsc'],
    ['vite-8.3.8-build-watch.txt', 'vite-build-watch', 'vite'],
  ])('the real screen %s is %s, naming %s', (name, id, program) => {
    expect(parkedOf(name)).toMatchObject({ id, programs: [program], answer: [] });
  });

  it('a dev server is not parked (vite 8.3.8 ready, serving)', () => {
    expect(parkedOf('vite-8.3.8-dev.txt')).toBeUndefined();
  });

  it('no prompt rule takes a watch footer for a prompt', () => {
    expect(matchPrompt(snapshotOf(screenFile('vitest-4.1.12-watch.txt').trimEnd(), { cursor: 'below' }), shippedRules.prompts)).toBeUndefined();
  });

  it('a parked entry names its program: without one, FILE:LINE', () => {
    const text = "version: 1\nparked:\n  - id: w\n    match: 'x'\n";
    expect(() => parseRuleFile(text, 'p.yaml')).toThrow(InputError);
    expect(() => parseRuleFile(text, 'p.yaml')).toThrow(/programs/);
  });
});

