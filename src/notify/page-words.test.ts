import { describe, expect, it } from 'vitest';
import { actOf, askedInWords, dialogChoices, keysCommand, riskInWords, type AskFacts } from './page-words.js';

const ask = (o: Partial<AskFacts>): AskFacts => ({ name: 'deploy-ask', kind: 'prompt', state: 'blocked', reason: 'prompt', class: null, prompt: null, ...o });
const cli = (verb: string, ...args: string[]) => ['nightshift', verb, ...args].join(' ');

describe('what is asked, in words', () => {
  it('a destructive [y/N]: the act and the risk, never "blocked (prompt: prompt)"', () => {
    const line = askedInWords(ask({ class: 'destructive', prompt: 'Deploy to production? [y/N]', risk: ['Deploy'] }));
    expect(line).toBe('deploy-ask wants to deploy to production — destructive («Deploy»)');
  });

  it('turns "Do you want to …?" into the act, and quotes a question that names none', () => {
    expect(actOf('Do you want to run npm install left-pad?')).toBe('run npm install left-pad');
    expect(actOf('Ok to proceed? (y)')).toBe('proceed');
    expect(actOf('Is this the right branch?')).toBeNull();
    expect(askedInWords(ask({ kind: 'unknown-prompt', reason: 'unknown-prompt', prompt: 'Which branch?' }))).toBe('deploy-ask asks "Which branch?" — a question no rule knows');
  });

  it('a dialog that names its command: wants to run it', () => {
    expect(askedInWords(ask({ class: 'permission', command: 'rm -rf build', prompt: 'Do you want to proceed?' }))).toBe('deploy-ask wants to run `rm -rf build` — needs your permission');
  });

  it('a hang says how long nothing moved', () => {
    expect(askedInWords(ask({ kind: 'hung', reason: 'hung', quiet_ms: 15 * 60_000 }))).toBe('deploy-ask is stuck: nothing moved for 15m');
  });

  it('ended jobs, including unanswered and escalated ones, read as ended', () => {
    expect(askedInWords(ask({ kind: 'failed', state: 'done', reason: 'exit', prompt: 'deploy-ask failed: exit code 3' }))).toBe('deploy-ask failed: exit code 3');
    expect(askedInWords(ask({ kind: 'interrupted', state: 'done', reason: 'interrupted', prompt: 'the daemon died while deploy-ask was running' }))).toBe(
      'deploy-ask was interrupted: the daemon died under it: the daemon died while deploy-ask was running',
    );
    expect(askedInWords(ask({ kind: 'other', state: 'done', reason: 'unanswered', prompt: null }))).toBe('deploy-ask ended unanswered: nobody answered in time');
    expect(askedInWords(ask({ kind: 'other', state: 'done', reason: 'escalated', prompt: null }))).toBe('deploy-ask ended escalated: its last turn was not accepted');
  });

  it('risk words without a class still say risky', () => {
    expect(riskInWords(null, ['rm'])).toBe('risky («rm»)');
    expect(riskInWords(null)).toBeNull();
  });
});

describe('the ways on', () => {
  it('a dialog\'s choices with their keys, never one that widens a permission', () => {
    const prompt = 'Do you want to proceed?\n❯ 1. Yes\n  2. Yes, and don\'t ask again for rm commands\n  3. No, and tell Claude what to do differently (esc)';
    expect(dialogChoices(prompt)).toEqual([
      { key: '1', label: 'Yes' },
      { key: '3', label: 'No, and tell Claude what to do differently (esc)' },
    ]);
  });

  it('rule keys as one command: typed text, a named key, or none', () => {
    expect(keysCommand(cli, 'j', ['y', 'enter'])).toBe('nightshift answer j y');
    expect(keysCommand(cli, 'j', ['escape'])).toBe('nightshift key j escape');
    expect(keysCommand(cli, 'j', ['down', 'enter'])).toBeNull();
  });
});
