import { describe, expect, it } from 'vitest';
import { openItems, renderMarkdown, RESUME_CARD, type ResumeCard } from './resume-card.js';
import { resumePrompt } from './resume-prompt.js';

const why = 'the reply claims completion ("I created the file notes.md.") but the turn made no successful write and git saw no change';
const refusedVerdict = { probe: 'fake-completion', severity: 'critical', message: why, response: 'escalate', evidence: ['s.jsonl:2:1'], turn: 's.jsonl:1:0' };
const loopVerdict = { probe: 'repeated-failure', severity: 'warn', message: 'Bash failed 3 times in a row: cat: does-not-exist.txt: No such file', response: 'escalate', evidence: ['s.jsonl:4:0'], turn: 's.jsonl:1:0' };
const refused = { claim: 'I created the file notes.md.', answer: 'I created the file notes.md.', why };

const card = (over: Partial<ResumeCard>): ResumeCard => RESUME_CARD.parse({
  job: 'j-1', name: 'notes', agent: 'claude', goal: 'please create notes.md', stop_reason: 'cancelled', stop_detail: null,
  time: '2026-01-01T00:00:00Z', verified: [], open: [], budget_used: { wall_ms: 5000, tokens: 120, steps: 0 },
  artefacts: [], unknown_outcome: [], command: ['claude', 'please create notes.md'], cwd: '/tmp/x', session: 'abc', ...over,
});

describe('the resume prompt and the card say why the job stopped', () => {
  it('a refused claim: the prompt says it was refused, the claim and why; Open lists it', () => {
    const c = card({ stopped_by: refusedVerdict, refused_claim: refused, open: openItems(refusedVerdict, refused) });
    const p = resumePrompt(c);
    expect(p).toContain('Your claim of completion was refused: you said "I created the file notes.md.", but the turn made no successful write and git saw no change.');
    expect(p).toContain('(cancelled)');
    expect(p).toMatch(/Goal: please create notes\.md$/);
    expect(c.open).toEqual([`refused claim of completion: "I created the file notes.md." — ${why}`]);
    const md = renderMarkdown(c);
    expect(md).toContain('**Why:** the agent claimed "I created the file notes.md."; refused: ');
    expect(md).toMatch(/## Open\n- refused claim of completion: "I created the file notes\.md\."/);
  });

  it('a loop: the prompt names the probe and its message and asks for another way', () => {
    const p = resumePrompt(card({ stopped_by: loopVerdict }));
    expect(p).toContain('It caught a loop (repeated-failure): Bash failed 3 times in a row: cat: does-not-exist.txt: No such file.');
    expect(p).toContain('Do not repeat it');
    expect(openItems(loopVerdict, null)).toEqual([`repeated-failure (escalate): ${loopVerdict.message}`]);
  });

  it('no probe stopped it: only the stop and the goal', () => {
    expect(resumePrompt(card({ stop_reason: 'budget:wall' }))).toBe('Continue the task. The supervisor stopped your last run (budget:wall). Goal: please create notes.md');
  });

  it('a card written before these fields reads with them null', () => {
    const c = card({});
    expect([c.stopped_by, c.refused_claim, c.step_budget, c.transcript]).toEqual([null, null, null, null]);
    expect(() => RESUME_CARD.parse({ ...c, budget_used: { wall_ms: 'x' } })).toThrow(/wall_ms/);
  });
});
