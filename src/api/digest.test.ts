import { describe, expect, it } from 'vitest';
import type { JobNote, NoteDetail } from '../board/notes.js';
import type { JobRecord } from '../board/types.js';
import { buildDigest } from './digest.js';
import { digestText } from './digest-text.js';

const H = 3_600_000;
const NOW = Date.parse('2025-01-15T07:30:00.000Z');
const at = (msBefore: number): string => new Date(NOW - msBefore).toISOString();

function job(name: string, over: Partial<JobRecord>): JobRecord {
  return {
    id: `id-${name}`, name, state: 'done', reason: { code: 'exit', exit_code: 0 }, command: ['true'], cwd: '/', env: {}, policy: null, rules: null,
    budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: null, blocked_ms: null }, priority: 0, after: [], resume_from: null, on_unanswered: null,
    created: at(10 * H), started: at(9 * H), ended: at(8 * H), last_activity: null, exit: null, paths: null, tokens_used: null, ...over,
  };
}

const note = (job: string, msBefore: number, n: NoteDetail): JobNote => ({ ...n, job: `id-${job}`, time: at(msBefore) });

describe('buildDigest', () => {
  const jobs = [
    job('fine', { tokens_used: 1200 }),
    job('deploy', { state: 'blocked', reason: { code: 'prompt', rule: 'deploy', class: 'destructive' }, ended: null }),
    job('stuck', { state: 'blocked', reason: { code: 'hung' }, ended: null }),
    job('tests', { reason: { code: 'exit', exit_code: 3 }, exit: { code: 3, signal: null } }),
    job('old-fail', { reason: { code: 'exit', exit_code: 1 }, ended: at(20 * H) }),
    job('waiting', { state: 'queued', reason: { code: 'submitted' }, started: null, ended: null }),
  ];
  const notes: JobNote[] = [
    note('old-fail', 20 * H, { kind: 'verdict', probe: 'loop', response: 'record' }),
    note('fine', 9 * H, { kind: 'answered', rule: 'npx-install', class: 'dependency', what: 'dependency prompt (rule npx-install) answered ["y","enter"]', layer: 'act' }),
    note('deploy', 2 * H, { kind: 'asked', reason: 'prompt', rule: 'deploy', class: 'destructive', question: 'Deploy to staging? [y/N]' }),
    note('fine', 8.5 * H, { kind: 'verdict', probe: 'no-progress', response: 'nudge' }),
    note('tests', 8 * H, { kind: 'verdict', probe: 'loop', response: 'record' }),
    note('tests', 8 * H, { kind: 'verdict', probe: 'loop', response: 'escalate' }),
    note('tests', 8 * H, { kind: 'ended', lines: ['FAIL src/a.test.ts', 'Error: expected 2, got 3'], steps: 14, tokens: 5000 }),
  ];
  const blockedSince = new Map([['id-deploy', at(2 * H)], ['id-stuck', at(4 * H)]]);
  const d = buildDigest({ jobs, blockedSince, notes, now: NOW, stateDir: '/s', since: NOW - 12 * H });
  // What a page offered wins over the digest's own guess.
  const paged = buildDigest({ jobs, blockedSince, notes, now: NOW, stateDir: '/s', since: NOW - 12 * H, paged: new Map([['id-deploy', ['nightshift answer --state /s deploy y', 'nightshift answer --state /s deploy n']]]) });

  it('puts the blocked jobs first, the one waiting longest at the top, with the question, the wait and the next commands', () => {
    expect(d.needs_you.map((n) => [n.name, n.waited_ms])).toEqual([['stuck', 4 * H], ['deploy', 2 * H]]);
    expect(d.needs_you[1]).toMatchObject({ question: 'Deploy to staging? [y/N]', next: ['nightshift show --state /s deploy', "nightshift answer --state /s deploy '<answer>'"] });
    expect(paged.needs_you[1]!.next).toEqual(['nightshift answer --state /s deploy y', 'nightshift answer --state /s deploy n']);
    expect(d.needs_you[0]).toMatchObject({ question: expect.stringMatching(/^stuck is stuck: nothing moved for \d/), next: ['nightshift attach --state /s stuck', 'nightshift cancel --state /s stuck'] });
  });

  it('lists what ended badly in the night with why and its last lines, leaving out what ended before it', () => {
    expect(d.ended_badly).toEqual([
      { id: 'id-tests', name: 'tests', ended: at(8 * H), why: 'exit code 3', exit_code: 3, last_lines: ['FAIL src/a.test.ts', 'Error: expected 2, got 3'], next: ['nightshift logs --state /s tests --lines 40', 'nightshift show --state /s tests'] },
    ]);
  });

  it('says what was answered automatically and under which rule, what each job cost, and counts verdicts by probe', () => {
    expect(d.answered).toEqual([{ id: 'id-fine', name: 'fine', time: at(9 * H), rule: 'npx-install', class: 'dependency', what: 'dependency prompt (rule npx-install) answered ["y","enter"]' }]);
    expect(d.cost.find((c) => c.name === 'tests')).toEqual({ id: 'id-tests', name: 'tests', state: 'done', wall_ms: H, tokens: 5000, steps: 14 });
    expect(d.cost.find((c) => c.name === 'fine')).toMatchObject({ tokens: 1200, steps: null });
    expect(d.cost.map((c) => c.name)).not.toContain('waiting');
    expect(d.probes).toEqual([{ probe: 'loop', count: 2 }, { probe: 'no-progress', count: 1 }]);
  });

  it('reads on an 80-column terminal, sections in order', () => {
    const text = digestText(d);
    expect(text.every((l) => l.length <= 80)).toBe(true);
    expect(text.filter((l) => /^[A-Z]/.test(l))).toEqual(['NEEDS YOU (2)', 'ENDED BADLY (1)', 'ANSWERED FOR YOU (1)', 'COST (4)', 'PROBES (2)']);
    expect(text).toContain('  stuck  blocked 4h  hung');
  });
});
