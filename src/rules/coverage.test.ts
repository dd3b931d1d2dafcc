import { describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { shippedRules } from '../../test/helpers/rules.js';
import { compareToChecked, coverageOf, coverageSummary } from './coverage.js';
import { parseRuleFile } from './load.js';

const rule = (checked: string) => `version: 1
prompts:
  - id: agent-dialog
    class: permission
    match: 'Allow\\?$'
    answer: ['1']
    checked: ${checked}
`;

describe('checked: in a prompt rule', () => {
  it('is read as agent and version', () => {
    const { prompts } = parseRuleFile(rule('[claude-code 2.1.112, my-agent 0.9]'), 'r.yaml');
    expect(prompts[0]!.checked).toEqual([
      { agent: 'claude-code', version: '2.1.112' },
      { agent: 'my-agent', version: '0.9' },
    ]);
  });

  it.each(['[claude-code]', '[Claude-Code 2.1.112]', '[claude-code v2.1.112]', '[claude-code 2]', '"claude-code 2.1.112"'])(
    'rejects %s with file and line',
    (bad) => {
      const err = (() => {
        try {
          parseRuleFile(rule(bad), 'r.yaml');
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(InputError);
      expect(String(err)).toMatch(/checked/);
      expect((err as InputError).line).toBe(7);
    },
  );

  it('is empty when absent', () => {
    expect(parseRuleFile(rule('[]'), 'r.yaml').prompts[0]!.checked).toEqual([]);
  });
});

describe('coverage', () => {
  it('compares over the parts a checked entry has', () => {
    expect(compareToChecked('0.61.4', '0.61')).toBe(0);
    expect(compareToChecked('0.62.0', '0.61')).toBeGreaterThan(0);
    expect(compareToChecked('2.1.400', '2.1.332')).toBeGreaterThan(0);
    expect(compareToChecked('2.1.99', '2.1.112')).toBeLessThan(0);
    expect(compareToChecked('3.0', '2.1.332')).toBeGreaterThan(0);
  });

  it('covers a checked version, one between and an older one; not a newer one', () => {
    const p = shippedRules.prompts;
    expect(coverageOf(p, 'claude-code', '2.1.112').covered).toBe(true);
    expect(coverageOf(p, 'claude-code', '2.1.200').covered).toBe(true);
    expect(coverageOf(p, 'claude-code', '2.0.1').covered).toBe(true);
    expect(coverageOf(p, 'gemini', '0.61.0').covered).toBe(true);
    // The exact release was checked (0.61.0), not the whole 0.61 series.
    expect(coverageOf(p, 'gemini', '0.61.3').covered).toBe(false);
    expect(coverageOf(p, 'claude-code', '2.1.400')).toEqual({
      agent: 'claude-code',
      version: '2.1.400',
      checked: ['2.1.112', '2.1.332'],
      covered: false,
      note: 'rules not checked against claude-code 2.1.400 (newest checked: 2.1.332); dialogs no rule names will be escalated',
    });
  });

  it('does not cover an agent no rule was checked against', () => {
    const c = coverageOf(shippedRules.prompts, 'aider', '0.80.0');
    expect(c.covered).toBe(false);
    expect(c.note).toBe('rules not checked against aider 0.80.0; dialogs no rule names will be escalated');
  });

  it('summarises the shipped rules by agent and version', () => {
    expect(coverageSummary(shippedRules.prompts)).toEqual({
      coverage:
        'claude-code 2.1.112, 2.1.332 (3 rules); codex 0.171.0 (1 rule); copilot 1.0.102 (2 rules); create-vite 9.3.0 (1 rule); gemini 0.61.0 (2 rules); opencode 1.18.33 (1 rule); qwen 0.24.4 (1 rule)',
      // Cursor and Kimi could not be run here: their rules come from published texts.
      unchecked: ['codex-trust', 'cursor-agent-approval', 'kimi-approval'],
    });
  });
});
