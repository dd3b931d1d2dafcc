/**
 * The labelled set of real runs (test/fixtures/judge/): its labels, and each
 * run judged as `nightshift judge` judges it (src/drill/judge.ts: the format's
 * parser, every event fed to the AgentMonitor with the profile, one at a
 * time, no git facts: a stored transcript has none). Shared by
 * test/unit/judge-fixtures.test.ts and scripts/judge-table.mjs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { readTranscript } from '../../src/adapters/stored.js';
import type { ResponseKind } from '../../src/agents/monitor.js';
import type { AgentKind } from '../../src/core/agent-events.js';
import { judgeEvents } from '../../src/drill/judge.js';
import type { ProbeProfile } from '../../src/probes/types.js';

export const JUDGE_SET = fileURLToPath(new URL('../fixtures/judge/', import.meta.url));
export const FOLDERS = ['healthy', 'stuck'] as const;
export type Label = (typeof FOLDERS)[number];

export interface LabelledRun {
  /** Path under test/fixtures/judge/, e.g. `stuck/claude-search-cycle.jsonl`. */
  readonly file: string;
  readonly agent: AgentKind;
  readonly label: Label;
  readonly shape: string;
  /** Probes that catch this run (any one of them); empty for a healthy run. */
  readonly should: readonly string[];
  /** A stuck run must be caught by this tool call at the latest. */
  readonly byStep?: number;
}

/** Responses that interrupt or talk to the agent: a healthy run must get none of them. */
export const INTRUSIVE: ReadonlySet<ResponseKind> = new Set(['nudge', 'escalate', 'stop']);

/** `dir`: the set's folder (a copy compiled elsewhere passes the repository's). */
export function loadLabels(dir = JUDGE_SET): LabelledRun[] {
  const doc = parse(readFileSync(join(dir, 'labels.yaml'), 'utf8')) as { runs: Array<Record<string, unknown>> };
  return doc.runs.map((r) => ({
    file: String(r.file),
    agent: String(r.agent) as AgentKind,
    label: String(r.label) as Label,
    shape: String(r.shape),
    should: Array.isArray(r.should) ? r.should.map(String) : [],
    ...(typeof r.by_step === 'number' ? { byStep: r.by_step } : {}),
  }));
}

/** Every transcript in the set's folders, as `folder/name`. */
export function setFiles(): string[] {
  return FOLDERS.flatMap((f) => readdirSync(join(JUDGE_SET, f)).filter((n) => n.endsWith('.jsonl')).map((n) => `${f}/${n}`)).sort();
}

export interface Replay {
  readonly events: number;
  readonly steps: number;
  readonly parseErrors: readonly string[];
  readonly responses: readonly Answered[];
}

/** A response, its probe, and the tool calls made when it came. */
export interface Answered {
  readonly probe: string;
  readonly kind: ResponseKind;
  readonly step: number;
}

/** A run judged exactly as `nightshift judge` does: its format detected, every event through the monitor with `profile`. */
export async function replay(run: Pick<LabelledRun, 'file'>, profile: ProbeProfile, dir = JUDGE_SET): Promise<Replay> {
  const t = await readTranscript(join(dir, run.file));
  const j = judgeEvents(t.events, profile);
  return {
    events: t.events.length,
    steps: j.calls,
    parseErrors: t.problems,
    responses: j.verdicts.map((v) => ({ probe: v.probe, kind: v.response, step: v.step })),
  };
}

/** Whether a run got what its label says: a healthy one nothing intrusive, a stuck one a verdict of one of its probes. */
export function judged(run: LabelledRun, r: Replay): { ok: boolean; fired: string[] } {
  const fired = [...new Set(r.responses.map((x) => `${x.probe}:${x.kind}@${x.step}`))];
  if (run.label === 'healthy') return { ok: !r.responses.some((x) => INTRUSIVE.has(x.kind)), fired };
  return { ok: r.responses.some((x) => run.should.includes(x.probe) && x.step <= (run.byStep ?? Infinity)), fired };
}
