/**
 * repeated-action: the same call with the same outcome, again and again,
 * inside a sliding window of recent tool calls. Pollers (sleep, CI watch,
 * status tools) are exempt: waiting on something external repeats by design.
 * Counting restarts with each turn (a user message is new input).
 */
import type { AgentEvent } from '../core/agent-events.js';
import { labelOf, stepsOf, type Step } from './steps.js';
import { turnsOf } from './turns.js';
import type { ProbeContext, ProbeProfile, Verdict } from './types.js';

export const REPEATED_ACTION = 'repeated-action';

interface Cluster {
  readonly step: Step;
  readonly ids: string[];
  last: number;
}

const counts = (s: Step): s is Step & { key: string } => s.key !== null && s.info.role !== 'poll';

export function repeatedAction(events: readonly AgentEvent[], profile: ProbeProfile, _ctx?: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  for (const turn of turnsOf(events)) {
    for (const c of clustersOf(stepsOf(turn, profile.rules), profile)) {
      const n = c.ids.length;
      out.push({
        probe: REPEATED_ACTION,
        // Hermes notices the 3rd identical call; Roo Code and OpenHands stop at the 4th.
        severity: n > profile.repeat ? 'critical' : 'warn',
        message: `the same call with the same result ${n} times within ${profile.window} tool calls: ${labelOf(c.step.call, c.step.call.tool)}`,
        evidence: c.ids,
        turn: turn.id,
      });
    }
  }
  return out;
}

/** Runs of one key: born when `repeat` copies fit in a window, grown while copies keep coming within a window. */
function clustersOf(steps: readonly Step[], p: ProbeProfile): Cluster[] {
  const open = new Map<string, Cluster>();
  const all: Cluster[] = [];
  steps.forEach((s, i) => {
    if (!counts(s)) return;
    const c = open.get(s.key);
    if (c && i - c.last < p.window) {
      c.ids.push(s.call.id);
      c.last = i;
      return;
    }
    const members = steps.slice(Math.max(0, i - p.window + 1), i + 1).filter((m) => counts(m) && m.key === s.key);
    if (members.length < p.repeat) return;
    const fresh: Cluster = { step: s, ids: members.map((m) => m.call.id), last: i };
    open.set(s.key, fresh);
    all.push(fresh);
  });
  return all;
}
