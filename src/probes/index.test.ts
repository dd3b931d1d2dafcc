import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LABELS } from '../../test/fixtures/trajectories/labels.js';
import { config, ctx, defaultProfile as P, trajectory, trajectoryNames } from '../../test/fixtures/trajectories/load.js';
import { PROBE_NAMES, runProbes, verdictKey } from './index.js';

/** Which probes fire on each fixture (profile default, git state unknown). */
const EXPECTED = Object.fromEntries(Object.entries(LABELS).map(([name, l]) => [name, l.fires]));

describe('runProbes', () => {
  it('has an expectation for every fixture', () => {
    expect(trajectoryNames()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s fires exactly %j', (name, probes) => {
    const events = trajectory(name);
    const verdicts = runProbes(events, P, ctx());
    expect(verdicts.map((v) => v.probe)).toEqual(probes);
    const ids = new Set(events.map((e) => e.id));
    for (const v of verdicts) for (const id of v.evidence) expect(ids.has(id), `${v.probe} cites ${id}`).toBe(true);
  });

  it('lets the long migration run under the long-task profile', () => {
    expect(runProbes(trajectory('long-migration.jsonl'), config.profile('long-task'), ctx())).toEqual([]);
  });

  it('reports the most severe first', () => {
    const changed = trajectory('unverified-change.jsonl').slice(0, -2);
    const stream = [
      ...changed,
      { kind: 'assistant-text', id: 'x1', t: 0, text: 'Let me check it.' } as const,
      { kind: 'turn-end', id: 'x2', t: 0, finalText: 'Let me check it.' } as const,
      ...trajectory('fake-completion.jsonl'),
    ];
    expect(runProbes(stream, P, ctx()).map((v) => [v.probe, v.severity, v.turn])).toEqual([
      ['fake-completion', 'critical', 'k01'],
      ['unverified-change', 'warn', 'v01'],
      ['announce-then-stop', 'info', 'v01'],
    ]);
  });

  it('keeps a verdict key stable while the stream grows and the severity rises', () => {
    const events = trajectory('read-loop.jsonl');
    const early = runProbes(events.slice(0, -2), P, ctx());
    const late = runProbes(events, P, ctx());
    expect(early.map((v) => [verdictKey(v), v.severity])).toEqual([['repeated-action|r01|r02', 'warn']]);
    expect(late.map((v) => [verdictKey(v), v.severity])).toEqual([['repeated-action|r01|r02', 'critical']]);
  });

  it('knows every probe by name', () => {
    expect([...PROBE_NAMES].sort()).toEqual([
      'alternation',
      'announce-then-stop',
      'budget-overrun',
      'fake-completion',
      'no-progress',
      'repeated-action',
      'repeated-failure',
      'unverified-change',
    ]);
  });
});

describe('purity', () => {
  const dir = new URL('./', import.meta.url);
  const sources = readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts') && n !== 'profiles-file.ts');

  it.each(sources)('%s imports only the event types, other probes and errors, and reads no clock', (name) => {
    const text = readFileSync(new URL(name, dir), 'utf8');
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    for (const spec of imports) expect(spec, `${name} imports ${spec}`).toMatch(/^(?:\.\/[\w-]+\.js|\.\.\/core\/agent-events\.js|\.\.\/util\/errors\.js)$/);
    expect(text).not.toMatch(/\b(?:Date\.now|new Date|performance\.now|process\.|Math\.random|setTimeout|import\()/);
  });
});
