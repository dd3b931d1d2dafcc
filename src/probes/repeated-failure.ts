/**
 * repeated-failure: one tool failing with the same error head (values
 * masked: failureKey) again and again, whatever its arguments (Goose: the same error 3× in a row; OpenHands
 * nudges at the 3rd identical error and stops at the 4th).
 *
 * "In a row" is per tool: reads in between (the agent looking around) do not
 * break the run; a success of that tool, any successful write (a new attempt
 * after a change) or a new turn does.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { errorKey } from './error-key.js';
import { writes } from './roles.js';
import { labelOf, resultsOf, type ResultStep } from './steps.js';
import { turnsOf } from './turns.js';
import type { ProbeContext, ProbeProfile, Verdict } from './types.js';

export const REPEATED_FAILURE = 'repeated-failure';

interface Run {
  readonly head: string;
  readonly key: string;
  readonly ids: string[];
  last: ResultStep;
}

export function repeatedFailure(events: readonly AgentEvent[], profile: ProbeProfile, _ctx?: ProbeContext): Verdict[] {
  const out: Verdict[] = [];
  for (const turn of turnsOf(events)) {
    for (const run of runsOf(resultsOf(turn, profile.rules))) {
      if (run.ids.length < profile.failRepeat) continue;
      const n = run.ids.length;
      out.push({
        probe: REPEATED_FAILURE,
        severity: n > profile.failRepeat ? 'critical' : 'warn',
        message: `${run.last.result.tool} failed ${n} times in a row ${run.head ? `with "${run.head}"` : 'with no error text'} (last call: ${labelOf(run.last.call, run.last.result.tool)})`,
        evidence: run.ids,
        turn: turn.id,
      });
    }
  }
  return out;
}

/**
 * The same failure again: the error head with its values masked (the same
 * error on file after file repeats). A test run is judged by its whole
 * output instead: other failing tests or a falling count is a fix loop at work.
 */
export function failureKey(r: ResultStep): string {
  return r.info.role === 'test' ? `test:${r.result.fingerprint}` : `err:${errorKey(r.result.errorHead ?? '')}`;
}

function runsOf(results: readonly ResultStep[]): Run[] {
  const current = new Map<string, Run>();
  const all: Run[] = [];
  for (const r of results) {
    const tool = r.result.tool;
    if (r.result.ok) {
      if (writes(r.info)) current.clear();
      else current.delete(tool);
      continue;
    }
    const head = r.result.errorHead ?? '';
    const key = failureKey(r);
    const run = current.get(tool);
    if (run && run.key === key) {
      run.ids.push(r.result.id);
      run.last = r;
      continue;
    }
    const fresh: Run = { head, key, ids: [r.result.id], last: r };
    current.set(tool, fresh);
    all.push(fresh);
  }
  return all;
}
