import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../board/types.js';
import { readResumeCard, RESUME_CARD, type ResumeCard } from '../supervisor/resume-card.js';
import { remaining, resumeCommand, resumeFrom } from './resume.js';
import { countVerdicts } from './stats.js';

const card = (over: Partial<ResumeCard> = {}): ResumeCard => RESUME_CARD.parse({
  job: 'j-1', name: 'fix', agent: 'claude', goal: 'fix the test', stop_reason: 'cancelled', stop_detail: null,
  time: '2026-01-01T00:00:00Z', verified: [], open: [], budget_used: { wall_ms: 60_000, tokens: 1000, steps: 30 }, step_budget: 80,
  artefacts: [], unknown_outcome: [], command: ['claude', '--permission-mode', 'default', 'fix the test'], cwd: '/tmp', session: 'sid',
  transcript: { path: '/h/sid.jsonl', lines: 14, last_event: 'sid.jsonl:14:0' }, ...over,
});
const old = (budgets: Partial<JobRecord['budgets']> = {}) =>
  ({ id: 'j-old', name: 'fix', budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: null, ...budgets } }) as JobRecord;

describe('nightshift resume: budgets left, the resume point, the command', () => {
  it('the step budget left is the old one minus the steps used, plus --grant-steps', () => {
    expect(remaining(old(), card(), {}).steps).toBe(50);
    expect(remaining(old(), card(), { grantSteps: 5 }).steps).toBe(55);
    expect(remaining(old({ wall_ms: 100_000, tokens: 5000 }), card(), { grantWall: 1000 })).toEqual({ wall_ms: 41_000, tokens: 4000, no_progress_ms: null, steps: 50 });
  });

  it('the profile\'s token budget is carried too: what is left, and --grant-tokens once it is spent', () => {
    expect(remaining(old(), card({ token_budget: 5000 }), {}).tokens).toBe(4000);
    const spent = card({ token_budget: 900, budget_used: { wall_ms: 1, tokens: 900_030, steps: 3 } });
    expect(() => remaining(old(), spent, {})).toThrow(/spent its budget; grant more with --grant-tokens/);
    expect(remaining(old(), spent, { grantTokens: 1_000_000 }).tokens).toBe(1_000_000 + 900 - 900_030);
  });

  it('a spent step budget needs --grant-steps, and the message says so', () => {
    const spent = card({ budget_used: { wall_ms: 1, tokens: null, steps: 80 } });
    expect(() => remaining(old(), spent, {})).toThrow(/spent its budget; grant more with --grant-steps/);
    expect(remaining(old(), spent, { grantSteps: 3 }).steps).toBe(3);
  });

  it('the resume point is where the old job stopped reading, with the first job\'s goal', () => {
    process.env.NIGHTSHIFT_USER = 'ann';
    expect(resumeFrom(old(), card())).toEqual({ job: 'j-old', transcript: '/h/sid.jsonl', lines: 14, last_event: 'sid.jsonl:14:0', goal: 'fix the test', by: 'ann' });
    delete process.env.NIGHTSHIFT_USER;
    expect(resumeFrom(old(), card({ transcript: null }))).toBeNull();
  });

  it('resuming a resumed job replaces its --resume and its prompt, keeping the flags', () => {
    const again = card({ command: ['claude', '--permission-mode', 'default', '--resume', 'sid', 'Continue the task. …'] });
    const cmd = resumeCommand(again);
    expect(cmd.slice(0, 5)).toEqual(['claude', '--permission-mode', 'default', '--resume', 'sid']);
    expect(cmd.filter((a) => a === '--resume')).toHaveLength(1);
    expect(cmd.at(-1)).toMatch(/^Continue the task\. .*Goal: fix the test$/);
  });

  it('a bad card names its file and field', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ns-card-')), 'resume.json');
    writeFileSync(file, JSON.stringify({ ...card(), goal: 7 }));
    expect(() => readResumeCard(file)).toThrow(`${file}: field goal:`);
  });
});

function jobWithEvidence(lines: object[]): JobRecord {
  const dir = mkdtempSync(join(tmpdir(), 'ns-stats-'));
  const evidence = join(dir, 'evidence.jsonl');
  writeFileSync(evidence, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return { paths: { dir, evidence, recording: '', events: '', log: '', summary: '' } } as unknown as JobRecord;
}

describe('nightshift stats counts each verdict once', () => {
  it('the same verdict of one transcript in two jobs\' evidence is one; the same ids in another transcript are another', () => {
    const v = { type: 'verdict', agent: 'claude', probe: 'fake-completion', response: 'escalate', turn: 's.jsonl:1:0', evidence: ['s.jsonl:2:0'], transcript: '/h/s.jsonl' };
    const oldJob = jobWithEvidence([v]);
    const resumed = jobWithEvidence([v, { ...v, turn: 's.jsonl:3:0', evidence: ['s.jsonl:5:0'] }]);
    const other = jobWithEvidence([{ ...v, transcript: '/h2/s.jsonl' }]);
    expect(countVerdicts([oldJob, resumed, other])).toMatchObject({ verdicts: 3, by_probe: { 'fake-completion': 3 } });
    expect(countVerdicts([oldJob, resumed])).toMatchObject({ verdicts: 2 });
  });
});
