/**
 * A turn's tool calls paired with their results and roles: the common view
 * of the action probes. A call whose result has not arrived yet has no key,
 * so a half-finished step never counts as a repeat.
 */
import { classifyCall, type CallInfo } from './roles.js';
import type { Turn } from './turns.js';
import type { ProbeRules, ToolCallEvent, ToolResultEvent } from './types.js';

export interface Step {
  readonly call: ToolCallEvent;
  readonly result: ToolResultEvent | null;
  readonly info: CallInfo;
  /**
   * The same call with the same outcome gives the same key (canonical call +
   * result fingerprint). Running `npm test` after each edit is the normal
   * work loop, not a repeat: its output changes.
   */
  readonly key: string | null;
}

export interface ResultStep {
  readonly result: ToolResultEvent;
  readonly call: ToolCallEvent | null;
  readonly info: CallInfo;
}

// Probes run on every new event of a growing stream; events are immutable, so their roles can be kept.
const cache = new WeakMap<ProbeRules, WeakMap<ToolCallEvent, CallInfo>>();

export function infoOf(call: ToolCallEvent, rules: ProbeRules): CallInfo {
  let byCall = cache.get(rules);
  if (!byCall) cache.set(rules, (byCall = new WeakMap()));
  let info = byCall.get(call);
  if (!info) byCall.set(call, (info = classifyCall(call.tool, call.args, rules)));
  return info;
}

export function stepKey(call: ToolCallEvent, result: ToolResultEvent | null): string | null {
  if (result === null) return null;
  return `${call.canonical}\u0000${result.ok ? 'ok' : 'error'}\u0000${result.fingerprint}`;
}

/** The turn's tool calls in order, each with its result (if it arrived in this turn). */
export function stepsOf(turn: Turn, rules: ProbeRules): Step[] {
  const results = new Map<string, ToolResultEvent>();
  for (const e of turn.events) if (e.kind === 'tool-result') results.set(e.callId, e);
  const out: Step[] = [];
  for (const e of turn.events) {
    if (e.kind !== 'tool-call') continue;
    const result = results.get(e.id) ?? null;
    out.push({ call: e, result, info: infoOf(e, rules), key: stepKey(e, result) });
  }
  return out;
}

/** The turn's tool results in order, each with its call and role. */
export function resultsOf(turn: Turn, rules: ProbeRules): ResultStep[] {
  const calls = new Map<string, ToolCallEvent>();
  const out: ResultStep[] = [];
  for (const e of turn.events) {
    if (e.kind === 'tool-call') calls.set(e.id, e);
    if (e.kind !== 'tool-result') continue;
    const call = calls.get(e.callId) ?? null;
    const info = call ? infoOf(call, rules) : classifyCall(e.tool, {}, rules);
    out.push({ result: e, call, info });
  }
  return out;
}

/** "Bash npm test" style label for messages: the tool and a short canonical tail. */
export function labelOf(call: ToolCallEvent | null, tool: string): string {
  if (!call) return tool;
  const text = call.canonical.length > 80 ? `${call.canonical.slice(0, 79)}…` : call.canonical;
  return text;
}
