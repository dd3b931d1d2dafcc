/**
 * The labelled set of real runs (test/fixtures/judge/, labels.yaml) through
 * the path `judge` uses: each agent's parser, then the AgentMonitor with the
 * `default` profile of rules/probes.yaml, event by event. A healthy run must
 * get no nudge, escalation or stop; a stuck run must be caught by one of the
 * probes its label names. The labels are the truth, not today's probes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProbeConfig } from '../../src/probes/profiles-file.js';
import { judged, JUDGE_SET, loadLabels, replay, setFiles } from '../helpers/judge-set.js';

const labels = loadLabels();
const profile = (await loadProbeConfig(join(JUDGE_SET, '..', '..', '..', 'rules', 'probes.yaml'))).profile('default');

describe('the judge fixture set', () => {
  it('labels every transcript once, and every label names a transcript of its folder', () => {
    expect(labels.map((l) => l.file).sort()).toEqual(setFiles());
    for (const l of labels) {
      expect(l.file.startsWith(`${l.label}/`), l.file).toBe(true);
      expect(l.label === 'stuck' ? l.should.length > 0 : l.should.length === 0, l.file).toBe(true);
    }
  });

  it.each(labels.map((l) => [l.file, l] as const))('%s', async (_file, run) => {
    const r = await replay(run, profile);
    expect(r.parseErrors).toEqual([]);
    expect(r.events).toBeGreaterThan(0);
    const { ok, fired } = judged(run, r);
    const want = run.label === 'healthy' ? 'no nudge, escalation or stop' : `one of ${run.should.join(', ')}${run.byStep ? ` by call ${run.byStep}` : ''}`;
    expect(ok, `${run.file} (${run.shape}): wanted ${want}; fired ${fired.join(', ') || 'nothing'}`).toBe(true);
  });
});
