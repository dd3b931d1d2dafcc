/**
 * budget-overrun: more tool calls or tokens than the profile allows while
 * the job has not reached a terminal state. Counted over the whole job, not
 * per turn: a nudge or a restart does not refill the budget. Length alone
 * is a poor stuck signal (it follows task difficulty), so this is a guard
 * rail with profile-sized limits, not a stall detector.
 */
import type { AgentEvent } from '../core/agent-events.js';
import type { ProbeContext, ProbeProfile, Verdict } from './types.js';

export const BUDGET_OVERRUN = 'budget-overrun';
const STEPS_UNIT = 'tool calls';

/** Which budget an overrun verdict is about: `steps` when the tool calls are over (they are named first), else `tokens`. */
export function overrunBudget(v: Verdict): 'steps' | 'tokens' {
  return v.message.includes(` ${STEPS_UNIT}`) ? 'steps' : 'tokens';
}

export function budgetOverrun(events: readonly AgentEvent[], profile: ProbeProfile, ctx: ProbeContext): Verdict[] {
  const finished = ctx.jobFinished ?? events[events.length - 1]?.kind === 'turn-end';
  if (finished) return [];
  const over: string[] = [];
  const evidence: string[] = [];
  let steps = ctx.spentBefore?.steps ?? 0;
  let tokens = ctx.spentBefore?.tokens ?? 0;
  for (const e of events) {
    if (e.kind === 'tool-call' && ++steps === profile.maxSteps + 1) evidence.push(e.id);
    if (e.kind !== 'usage') continue;
    const before = tokens;
    tokens += e.inputTokens + e.outputTokens;
    if (before <= profile.maxTokens && tokens > profile.maxTokens) evidence.push(e.id);
  }
  if (steps > profile.maxSteps) over.push(`${steps}/${profile.maxSteps} ${STEPS_UNIT}`);
  if (tokens > profile.maxTokens) over.push(`${tokens}/${profile.maxTokens} tokens`);
  if (over.length === 0) return [];
  return [
    {
      probe: BUDGET_OVERRUN,
      severity: 'critical',
      message: `over budget (profile ${profile.name}) and not finished: ${over.join(', ')}`,
      // The events that crossed each limit: the first call over the step budget, the usage that crossed the token budget.
      evidence,
      turn: null,
    },
  ];
}
