import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { choiceLabel, keyName } from './choice-labels.js';

/** A verbatim screen from test/fixtures/screens/, as rows. */
const screen = (name: string): string[] => readFileSync(new URL(`../../test/fixtures/screens/${name}.txt`, import.meta.url), 'utf8').split('\n');

describe('choiceLabel on the agents’ real dialogs (the rules’ answer and decline keys)', () => {
  it.each([
    ['claude-2.1.112-bash-permission', ['1'], '1. Yes'],
    ['claude-2.1.112-bash-permission', ['escape'], 'Esc: cancel'],
    ['claude-2.1.332-bash-permission', ['1'], '1. Yes'],
    ['claude-2.1.332-bash-permission', ['escape'], 'Esc: cancel'],
    ['claude-2.1.112-trust-workspace', ['1'], '1. Yes, I trust this folder'],
    ['claude-2.1.112-trust-workspace', ['escape'], 'Esc: cancel'],
    // Unnumbered: yes is Down then Enter, labelled by the row Down moves to.
    ['claude-2.1.332-trust-workspace', ['down', 'enter'], 'Down: Yes, I trust this folder'],
    ['claude-2.1.332-trust-workspace', ['escape'], 'Esc: cancel'],
    ['codex-0.171-approval', ['1'], '1. Yes, proceed'],
    ['codex-0.171-approval', ['escape'], 'Esc: No, and tell Codex what to do differently'],
    ['copilot-1.0.102-trust', ['1'], '1. Yes'],
    ['copilot-1.0.102-trust', ['escape'], 'Esc: No'],
    ['copilot-1.0.102-shell-permission', ['escape'], 'Esc: No, and tell Copilot what to do differently'],
    ['gemini-0.61.0-shell-approval', ['1'], '1. Allow once'],
    ['gemini-0.61.0-shell-approval', ['escape'], 'Esc: No, suggest changes'],
    ['gemini-0.61.0-shell-approval-under-warning', ['1'], '1. Allow once'],
    ['gemini-0.61.0-trust-folder', ['1'], '1. Trust folder (project)'],
    ['gemini-0.61.0-trust-folder', ['3'], "3. Don't trust"],
    ['qwen-0.24.4-shell-permission', ['1'], '1. Yes, allow once'],
    ['qwen-0.24.4-shell-permission', ['escape'], 'Esc: No, suggest changes'],
    ['kimi-1.49-synthetic-shell-approval', ['1'], '1. Approve once'],
    ['cursor-synthetic-run-command', ['y'], 'y: Run (once)'],
    ['cursor-synthetic-run-command', ['escape'], 'Esc: Skip'],
    ['cursor-synthetic-write-file', ['escape'], 'Esc: Reject & propose changes'],
    ['opencode-1.18.33-bash-permission', ['enter'], 'Enter: confirm'],
  ])('%s %j → %s', (name, keys, label) => {
    expect(choiceLabel(keys, screen(name))).toBe(label);
  });
});

describe('choiceLabel at line prompts', () => {
  it('reads y and n at a [y/N], (Y/n) or [yes/no] question', () => {
    const rows = ['$ ./clean.sh', 'Delete the cache? [y/N] '];
    expect(choiceLabel(['y', 'enter'], rows)).toBe('y: Yes');
    expect(choiceLabel(['n', 'enter'], rows)).toBe('n: No');
    expect(choiceLabel(['y', 'enter'], ['Proceed (Y/n)?'])).toBe('y: Yes');
    expect(choiceLabel(['n', 'enter'], ['Overwrite? [yes/no]:'])).toBe('n: No');
  });

  it("reads npm's lone (y) and a bare question (rm -i)", () => {
    const npx = ['Need to install the following packages:', 'cowsay@1.6.0', 'Ok to proceed? (y) '];
    expect(choiceLabel(['y', 'enter'], npx)).toBe('y: Yes');
    expect(choiceLabel(['n', 'enter'], npx)).toBe('n: No');
    expect(choiceLabel(['n', 'enter'], ["rm: remove regular file 'x'?"])).toBe('n: No');
  });

  it("reads Aider's (Y)es/(N)o/(D)on't ask again", () => {
    const rows = ["Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:"];
    expect(choiceLabel(['y', 'enter'], rows)).toBe('y: Yes');
    expect(choiceLabel(['n', 'enter'], rows)).toBe('n: No');
    expect(choiceLabel(['d', 'enter'], rows)).toBe("d: Don't ask again");
  });

  it('reads Enter from "Press Enter to continue"', () => {
    expect(choiceLabel(['enter'], ['Press Enter to continue'])).toBe('Enter: continue');
    expect(choiceLabel(['enter'], ['  Press enter to confirm or esc to cancel'])).toBe('Enter: confirm');
    expect(choiceLabel(['escape'], ['  Press enter to confirm or esc to cancel'])).toBe('Esc: cancel');
  });

  it('asks only the bottom row about a bare question: one further up was asked before', () => {
    expect(choiceLabel(['n', 'enter'], ['Continue?', 'working…', 'What now> '])).toBe('n');
  });
});

describe('choiceLabel falls back to the key’s name', () => {
  it('when the screen says nothing about the key', () => {
    expect(choiceLabel(['escape'], ['hello'])).toBe('Esc');
    expect(choiceLabel(['enter'], [])).toBe('Enter');
    expect(choiceLabel(['q', 'enter'], ['What now> '])).toBe('q');
    expect(choiceLabel(['4'], screen('claude-2.1.112-bash-permission'))).toBe('4');
    expect(choiceLabel(['down', 'enter'], ['no menu here'])).toBe('Down');
    expect(choiceLabel([], ['x'])).toBe('');
  });

  it('names keys as a keyboard does', () => {
    expect(keyName('esc')).toBe('Esc');
    expect(keyName('ctrl-c')).toBe('Ctrl-C');
    expect(keyName('shift-tab')).toBe('Shift-Tab');
    expect(keyName('n')).toBe('n');
  });

  it('clips a long option to one button', () => {
    const label = choiceLabel(['1'], [`❯ 1. ${'very '.repeat(30)}long`]);
    expect(label.length).toBeLessThanOrEqual(60);
    expect(label.endsWith('…')).toBe(true);
  });
});
