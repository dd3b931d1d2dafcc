/**
 * Re-judging a stored stream: the events go one by one through the
 * AgentMonitor a live job uses, so each verdict and its response (nudge,
 * escalate, stop, record) is what the live job would have done at that
 * point. Pure: no clock (an event's own time is its verdict's), no files.
 *
 * A live job is blocked at its first escalation and ended at a stop; a
 * stored run went on. The judge reports that first binding response and
 * judges on as if a person had let the agent continue, marking every later
 * verdict `after_stop`. Git facts are not in a transcript: every turn's is
 * unknown (null), as for a job whose cwd is no repository.
 */
import type { AgentEvent, AgentKind, StoredTranscript } from '../core/agent-events.js';
import type { ProbeProfile, Severity } from '../probes/index.js';
import type { Verification } from '../probes/unverified-change.js';
import { AgentMonitor, type ResponseKind } from '../agents/monitor.js';

export const JUDGE_VERSION = 1;

export interface JudgedVerdict {
  /** Tool calls seen when the verdict came (1 = during or after the first call). */
  readonly step: number;
  /** The event's own time (epoch ms; 0 when the transcript gave none). */
  readonly t: number;
  /** The event whose arrival produced the verdict. */
  readonly at: string;
  readonly turn: string | null;
  readonly probe: string;
  readonly severity: Severity;
  readonly response: ResponseKind;
  readonly evidence: readonly string[];
  readonly message: string;
  /** Came after the event of the first escalation or stop: a live job would have been blocked or ended by then. */
  readonly after_stop: boolean;
}

export interface FirstStop {
  readonly step: number;
  readonly probe: string;
  readonly response: 'escalate' | 'stop';
}

export interface Judgement {
  readonly profile: string;
  readonly calls: number;
  readonly tokens: number;
  readonly turns: number;
  readonly verdicts: readonly JudgedVerdict[];
  readonly first_stop: FirstStop | null;
  readonly verification: Verification;
}

export function judgeEvents(events: readonly AgentEvent[], profile: ProbeProfile): Judgement {
  const monitor = new AgentMonitor(profile);
  const verdicts: JudgedVerdict[] = [];
  let step = 0;
  let turns = 0;
  let firstStop: FirstStop | null = null;
  for (const e of events) {
    if (e.kind === 'tool-call') step++;
    if (e.kind === 'turn-start') turns++;
    // Verdicts of one event come at one moment: none of them is after another's stop.
    const afterStop = firstStop !== null;
    for (const r of monitor.observe(e, { gitChanged: null })) {
      const v = r.verdict;
      verdicts.push({ step, t: e.t, at: e.id, turn: v.turn, probe: v.probe, severity: v.severity, response: r.kind, evidence: v.evidence, message: r.why, after_stop: afterStop });
      if (firstStop === null && (r.kind === 'escalate' || r.kind === 'stop')) firstStop = { step, probe: v.probe, response: r.kind };
    }
  }
  const stats = monitor.stats;
  return { profile: profile.name, calls: stats.steps, tokens: stats.tokens, turns, verdicts, first_stop: firstStop, verification: monitor.verification() };
}

/** Counts of verdicts by probe and by response. */
export interface Tally {
  readonly by_probe: Record<string, number>;
  readonly by_response: Record<string, number>;
}

export interface TranscriptReport extends Judgement, Tally {
  readonly type: 'transcript';
  readonly version: number;
  readonly path: string;
  readonly format: string;
  readonly agent: AgentKind;
  readonly events: number;
  readonly problems: readonly string[];
  /** The same transcript under `--compare`'s profile. */
  readonly compare?: Judgement & Tally;
}

export function judgeTranscript(t: StoredTranscript, profile: ProbeProfile, compare?: ProbeProfile): TranscriptReport {
  const j = judgeEvents(t.events, profile);
  const other = compare ? judgeEvents(t.events, compare) : undefined;
  return {
    type: 'transcript',
    version: JUDGE_VERSION,
    path: t.path,
    format: t.format,
    agent: t.agent,
    events: t.events.length,
    problems: t.problems,
    ...j,
    ...tally([j]),
    ...(other && { compare: { ...other, ...tally([other]) } }),
  };
}

function tally(js: readonly Judgement[]): Tally {
  const by_probe: Record<string, number> = {};
  const by_response: Record<string, number> = {};
  for (const v of js.flatMap((j) => j.verdicts)) {
    by_probe[v.probe] = (by_probe[v.probe] ?? 0) + 1;
    by_response[v.response] = (by_response[v.response] ?? 0) + 1;
  }
  return { by_probe, by_response };
}

export interface SideSummary extends Tally {
  readonly profile: string;
  /** Transcripts whose judging met an escalation or a stop (a live job would have been blocked or ended). */
  readonly stopped: number;
  /** Of those, by the probe of the first binding response. */
  readonly stopped_by: Record<string, number>;
}

export interface JudgeSummary extends SideSummary {
  readonly type: 'summary';
  readonly version: number;
  readonly transcripts: number;
  readonly calls: number;
  readonly tokens: number;
  /** Files that could not be judged, `FILE[:LINE]: why`. */
  readonly errors: readonly string[];
  readonly compare?: SideSummary;
}

export function summarise(reports: readonly TranscriptReport[], errors: readonly string[], profile: string, compare?: string): JudgeSummary {
  const side = (name: string, js: readonly Judgement[]): SideSummary => {
    const stopped_by: Record<string, number> = {};
    for (const j of js) if (j.first_stop) stopped_by[j.first_stop.probe] = (stopped_by[j.first_stop.probe] ?? 0) + 1;
    return { profile: name, stopped: js.filter((j) => j.first_stop).length, stopped_by, ...tally(js) };
  };
  const others = reports.flatMap((r) => (r.compare ? [r.compare] : []));
  return {
    type: 'summary',
    version: JUDGE_VERSION,
    transcripts: reports.length,
    calls: reports.reduce((n, r) => n + r.calls, 0),
    tokens: reports.reduce((n, r) => n + r.tokens, 0),
    ...side(profile, reports),
    errors,
    ...(compare !== undefined && { compare: side(compare, others) }),
  };
}
