import { describe, expect, it } from 'vitest';
import { evidenceLine } from './show.js';

describe('show: evidence lines (issue 10.6)', () => {
  it('renders a verdict with its probe, response, message and cited events', () => {
    const line = evidenceLine({
      type: 'verdict', agent: 'claude', probe: 'repeated-action', severity: 'critical', response: 'escalate',
      message: 'Bash ls -la ran 4 times with the same result', evidence: ['s.jsonl:6:1', 's.jsonl:7:0'], turn: 't1',
    });
    expect(line).toBe('verdict repeated-action (critical) → escalate: Bash ls -la ran 4 times with the same result [events s.jsonl:6:1 s.jsonl:7:0]');
  });
  it('keeps prompt records as they were', () => {
    expect(evidenceLine({ type: 'prompt', decision: 'escalate', why: 'policy', answered_by: 'human:ann' })).toBe('prompt escalate policy by human:ann');
  });
});
