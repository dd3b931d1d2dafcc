import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/board/types.js';
import { resumeCommand } from '../../src/cli/resume.js';
import { countVerdicts } from '../../src/cli/stats.js';
import type { ResumeCard } from '../../src/supervisor/resume-card.js';
import { renderMarkdown } from '../../src/supervisor/resume-card.js';

function jobWithEvidence(lines: object[]): JobRecord {
  const dir = mkdtempSync(join(tmpdir(), 'ns-stats-'));
  const evidence = join(dir, 'evidence.jsonl');
  writeFileSync(evidence, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { paths: { dir, evidence, recording: '', events: '', log: '', summary: '' } } as unknown as JobRecord;
}

describe('nightshift stats', () => {
  it('counts verdicts by probe, by agent and by response over every job', () => {
    const a = jobWithEvidence([
      { type: 'verdict', agent: 'claude', probe: 'repeated-action', response: 'escalate' },
      { type: 'prompt', decision: 'escalate' },
      { type: 'verdict', agent: 'claude', probe: 'announce-then-stop', response: 'nudge' },
    ]);
    const b = jobWithEvidence([{ type: 'verdict', agent: 'codex', probe: 'repeated-action', response: 'escalate' }]);
    const none = { paths: null } as unknown as JobRecord;
    expect(countVerdicts([a, b, none])).toEqual({
      jobs: 3,
      verdicts: 3,
      by_probe: { 'repeated-action': 2, 'announce-then-stop': 1 },
      by_agent: { claude: { 'repeated-action': 1, 'announce-then-stop': 1 }, codex: { 'repeated-action': 1 } },
      by_response: { escalate: 2, nudge: 1 },
    });
  });
});

const card = (over: Partial<ResumeCard>): ResumeCard => ({
  job: 'j-1', name: 'fix', agent: 'claude', goal: 'fix the failing test', stop_reason: 'budget:wall', stop_detail: null,
  stopped_by: null, refused_claim: null, agent_handoff: null, step_budget: 80, token_budget: null, transcript: null,
  time: '2026-11-30T00:00:00Z', verified: [], open: ['tests not run'], budget_used: { wall_ms: 60_000, tokens: 1200, steps: 9 },
  artefacts: ['src/a.ts'], unknown_outcome: ['Bash {"command":"npm test"}'],
  command: ['claude', '--permission-mode', 'default', 'fix the failing test'], cwd: '/tmp/x', session: 'abc', ...over,
});

describe('nightshift resume', () => {
  it('uses Claude Code\'s own --resume with the session, and keeps the goal', () => {
    const cmd = resumeCommand(card({}));
    expect(cmd.slice(0, 5)).toEqual(['claude', '--permission-mode', 'default', '--resume', 'abc']);
    expect(cmd.at(-1)).toContain('fix the failing test');
  });
  it('re-runs the same command for agents without a resume flag we know', () => {
    expect(resumeCommand(card({ agent: 'codex', session: null, command: ['codex', 'do it'] }))).toEqual(['codex', 'do it']);
  });
  it('the Markdown card names the goal, the stop, the budget, the files and the unknown outcomes', () => {
    const md = renderMarkdown(card({}));
    for (const s of ['fix the failing test', 'budget:wall', '60 s wall clock, 9/80 tool calls, 1200 tokens', 'src/a.ts', 'npm test', 'nightshift resume fix']) {
      expect(md).toContain(s);
    }
  });
});
