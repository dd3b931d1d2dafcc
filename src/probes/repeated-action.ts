/**
 * repeated-action: the same call with the same outcome, again and again,
 * inside a sliding window of recent tool calls, or a longer sequence of
 * calls coming round again unchanged (cycles.ts). Pollers (sleep, CI
 * watch, status tools) are exempt: waiting on something external repeats by
 * design. Counting restarts with each turn (a user message is new input) and,
 * with each successful write of something new: re-running the same
 * comparison on a new version is a new attempt even when it prints the same
 * wrong output (as repeated-failure counts it). Writing the same thing again
 * is no new version, so a rewrite loop still counts.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { cyclesOf, shortestUnseenCycle } from './cycles.js';
import { writes } from './roles.js';
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
    const steps = stepsOf(turn, profile.rules);
    for (const c of clustersOf(steps, profile)) {
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
    const looped = steps.filter((s) => s.info.role !== 'poll');
    for (const c of cyclesOf(looped, shortestUnseenCycle(profile), profile.repeat)) {
      out.push({
        probe: REPEATED_ACTION,
        severity: c.rounds > profile.repeat ? 'critical' : 'warn',
        message: `the same ${c.length} calls with the same results, round after round (${c.rounds} rounds started): ${c.steps.map((s) => labelOf(s.call, s.call.tool)).join(' → ')}`,
        evidence: c.ids,
        turn: turn.id,
      });
    }
  }
  return out;
}

/**
 * Runs of one key: born when `repeat` copies fit in a window, grown while
 * copies keep coming within a window. Copies before the latest new version
 * (a successful write not made before in the turn) do not count with those after it.
 */
function clustersOf(steps: readonly Step[], p: ProbeProfile): Cluster[] {
  const open = new Map<string, Cluster>();
  const all: Cluster[] = [];
  const versions = new Set<string>();
  let since = -1;
  steps.forEach((s, i) => {
    if (s.result?.ok && writes(s.info) && !versions.has(s.call.canonical)) {
      versions.add(s.call.canonical);
      since = i - 1;
    }
    if (!counts(s)) return;
    const c = open.get(s.key);
    if (c && i - c.last < p.window && c.last > since) {
      c.ids.push(s.call.id);
      c.last = i;
      return;
    }
    const from = Math.max(0, i - p.window + 1, since + 1);
    const members = steps.slice(from, i + 1).filter((m) => counts(m) && m.key === s.key);
    if (members.length < p.repeat) return;
    const fresh: Cluster = { step: s, ids: members.map((m) => m.call.id), last: i };
    open.set(s.key, fresh);
    all.push(fresh);
  });
  return all;
}
