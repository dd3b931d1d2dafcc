/** The JSON shape of one drilled scenario (README "nightshift drill --json"), and its verdict. */
import { wireReason } from '../core/outcome.js';
import type { Transition } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import type { ActionMatch, Expectations, StateMatch } from './expectations.js';
import type { Replay } from './replay.js';

export interface TimelineEntry {
  t: number;
  state: string;
  reason: string;
  rule?: string;
  class?: string;
  exit_code?: number | null;
  signal?: string | null;
  detail?: string;
}

export interface ActionEntry {
  t: number;
  kind: string;
  rule: string | null;
  class: string | null;
  prompt: string | null;
  text: string;
  reason: string;
  since: number;
  layer: string;
  why: string;
  keys?: readonly string[];
  command?: string | null;
  packages?: readonly object[];
}

export interface ScenarioResult {
  file: string;
  description?: string;
  duration: number;
  final: { state: string; reason: string };
  timeline: TimelineEntry[];
  actions: ActionEntry[];
  time_to_alert: number | null;
  passed: boolean | null;
  failures: string[];
  /** Its expectations forbid any block (a must-not-fire screen). */
  must_not_block: boolean;
}

const sec = (ms: number) => Math.round(ms) / 1_000;

export function timelineEntry(tr: Transition): TimelineEntry {
  const { code, ...rest } = wireReason(tr.reason);
  return { t: sec(tr.t), state: tr.to, reason: code, ...rest };
}

export function actionEntry(a: Action): ActionEntry {
  return {
    t: sec(a.t),
    kind: a.kind,
    rule: a.rule,
    class: a.class,
    prompt: a.prompt,
    text: a.text,
    reason: a.reason,
    since: sec(a.since),
    layer: a.layer,
    why: a.why,
    ...(a.keys ? { keys: a.keys } : {}),
    ...(a.command !== undefined ? { command: a.command } : {}),
    ...(a.packages ? { packages: a.packages } : {}),
  };
}

export function buildResult(file: string, replay: Replay, expect: Expectations | undefined, description?: string): ScenarioResult {
  const timeline = replay.transitions.map(timelineEntry);
  const actions = replay.actions.map(actionEntry);
  const last = timeline.at(-1)!;
  const first = actions[0];
  const result: ScenarioResult = {
    file,
    ...(description === undefined ? {} : { description }),
    duration: Math.round(replay.duration * 1_000) / 1_000,
    final: { state: last.state, reason: last.reason },
    timeline,
    actions,
    time_to_alert: first ? Math.round((first.t - first.since) * 1_000) / 1_000 : null,
    passed: null,
    failures: [],
    must_not_block: expect?.never.some((m) => m.state === 'blocked' && !m.reason && !m.rule && !m.class) ?? false,
  };
  if (expect) {
    result.failures = check(result, expect);
    result.passed = result.failures.length === 0;
  }
  return result;
}

function fits(entry: TimelineEntry, m: StateMatch): boolean {
  return (
    (m.state === undefined || m.state === entry.state) &&
    (m.reason === undefined || m.reason === entry.reason) &&
    (m.rule === undefined || m.rule === entry.rule) &&
    (m.class === undefined || m.class === entry.class)
  );
}

function fitsAction(a: ActionEntry, m: ActionMatch): boolean {
  return (
    (m.kind === undefined || m.kind === a.kind) &&
    (m.rule === undefined || m.rule === a.rule) &&
    (m.class === undefined || m.class === a.class) &&
    (m.reason === undefined || m.reason === a.reason) &&
    (m.layer === undefined || m.layer === a.layer) &&
    (m.keys === undefined || JSON.stringify(m.keys) === JSON.stringify(a.keys ?? [])) &&
    (m.says === undefined || `${a.prompt ?? ''}\n${a.text}`.includes(m.says))
  );
}

const show = (m: object) => JSON.stringify(m);

function check(r: ScenarioResult, e: Expectations): string[] {
  const failures: string[] = [];
  for (const m of e.reach) if (!r.timeline.some((x) => fits(x, m))) failures.push(`never reached ${show(m)}`);
  for (const m of e.never) {
    const hit = r.timeline.find((x) => fits(x, m));
    if (hit) failures.push(`reached forbidden ${show(m)} at t=${hit.t}s (${hit.state} ${hit.reason})`);
  }
  if (e.final) {
    const f = r.timeline.at(-1)!;
    if (!fits(f, e.final)) failures.push(`final state ${f.state} ${f.reason}, expected ${show(e.final)}`);
  }
  for (const m of e.actions) if (!r.actions.some((a) => fitsAction(a, m))) failures.push(`no action ${show(m)}`);
  for (const kind of e.no_actions_of_kind) {
    const hit = r.actions.find((a) => a.kind === kind);
    if (hit) failures.push(`forbidden ${kind} action at t=${hit.t}s (${hit.rule ?? hit.reason})`);
  }
  if (e.max_actions !== undefined && r.actions.length > e.max_actions) {
    failures.push(`${r.actions.length} actions, expected at most ${e.max_actions}`);
  }
  if (e.max_time_to_alert !== undefined) {
    if (r.time_to_alert === null) failures.push(`no alert, expected one within ${e.max_time_to_alert}s`);
    else if (r.time_to_alert > e.max_time_to_alert) {
      failures.push(`time to alert ${r.time_to_alert}s, expected at most ${e.max_time_to_alert}s`);
    }
  }
  return failures;
}
