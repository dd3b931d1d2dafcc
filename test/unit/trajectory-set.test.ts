/**
 * The whole trajectory fixture set through the agent monitor, event by event
 * as a live job feeds it: healthy work is never escalated under any shipped
 * profile, each stall is answered by the probes its label names, and seed
 * 000's four sessions get the seed's outcomes.
 */
import { describe, expect, it } from 'vitest';
import { AgentMonitor, type MonitorResponse } from '../../src/agents/monitor.js';
import { runProbes } from '../../src/probes/index.js';
import { LABELS } from '../fixtures/trajectories/labels.js';
import { config, ctx, trajectory, trajectoryNames } from '../fixtures/trajectories/load.js';

const PROFILES = [...config.profiles.keys()];

function monitored(name: string, profile: string): MonitorResponse[] {
  const monitor = new AgentMonitor(config.profile(profile));
  return trajectory(name).flatMap((e) => monitor.observe(e, ctx()));
}

const byLabel = (label: string) => Object.keys(LABELS).filter((n) => LABELS[n]!.label === label);

describe('the trajectory fixture set', () => {
  it('labels every fixture', () => {
    expect(trajectoryNames()).toEqual(Object.keys(LABELS).sort());
  });

  it.each(byLabel('healthy').flatMap((name) => PROFILES.map((p) => [name, p])))('never escalates healthy %s under %s', (name, profile) => {
    expect(monitored(name, profile).filter((r) => r.kind === 'escalate').map((r) => r.why)).toEqual([]);
  });

  it.each(byLabel('stuck'))('answers stuck %s with the probes its label names', (name) => {
    const answered = new Set(monitored(name, 'default').map((r) => r.verdict.probe));
    expect([...answered].sort()).toEqual([...LABELS[name]!.fires].sort());
  });
});

describe("seed 000's sessions A–D under each shipped profile", () => {
  const fires = (name: string, profile: string) => runProbes(trajectory(name), config.profile(profile), ctx()).map((v) => v.probe).sort();

  it('A (the same logistics query 5×, then 已为您提交赔付申请): a loop and a fake completion everywhere; no progress too where the seed judged it (quick = its default)', () => {
    expect(fires('seed-a-logistics-loop.jsonl', 'default')).toEqual(['fake-completion', 'repeated-action']);
    expect(fires('seed-a-logistics-loop.jsonl', 'long-task')).toEqual(['fake-completion', 'repeated-action']);
    expect(fires('seed-a-logistics-loop.jsonl', 'quick')).toEqual(['fake-completion', 'no-progress', 'repeated-action']);
  });

  it('B (已完成改签，并已通知用户 after reads and a preview): a fake completion under every profile', () => {
    for (const p of PROFILES) expect(fires('seed-b-fake-reschedule.jsonl', p), p).toEqual(['fake-completion']);
  });

  it('C (update_order and notify_user, then the same claim): nothing under any profile', () => {
    for (const p of PROFILES) expect(fires('seed-c-reschedule.jsonl', p), p).toEqual([]);
  });

  it('D (14 distinct steps, still running): let run by the wide profiles, over budget under quick (the seed re-judged by its default)', () => {
    expect(fires('seed-d-long-chain.jsonl', 'default')).toEqual([]);
    expect(fires('seed-d-long-chain.jsonl', 'long-task')).toEqual([]);
    expect(fires('seed-d-long-chain.jsonl', 'quick')).toEqual(['budget-overrun']);
  });
});
