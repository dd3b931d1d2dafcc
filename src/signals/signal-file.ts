/**
 * Follows a job's agent-signals.jsonl (what its hooks or notify program
 * appended) and hands over the agent states its lines say. Async throughout
 * (LineTail: a watcher and a slow backstop poll), so a busy agent's hooks
 * never hold up the daemon. A bad line is reported and skipped: a signal is
 * a hint to escalate sooner, never something the job depends on.
 */
import type { AgentState } from '../core/agent-state.js';
import { LineTail } from '../events/line-tail.js';

export type StateOf = (input: unknown) => AgentState | undefined;

export interface SignalHandlers {
  state(s: AgentState): void;
  problem(message: string): void;
}

/**
 * A line's JSON; for a line the hook command cut at HOOK_LINE_CAP (a tool's
 * whole output), the event's first fields, which come before the long ones.
 */
export function parseSignalLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    const field = (name: string) => new RegExp(`"${name}"\\s*:\\s*"([A-Za-z_-]+)"`).exec(line)?.[1];
    const event = field('hook_event_name');
    if (event === undefined) return undefined;
    const type = field('notification_type');
    return { hook_event_name: event, ...(type !== undefined && { notification_type: type }) };
  }
}

export async function followSignals(file: string, stateOf: StateOf, on: SignalHandlers, safetyPollMs = 1000): Promise<LineTail> {
  // Only nightshift's own hooks append to the file; after a truncation, what was said is not said again.
  let seen = 0;
  return LineTail.open(
    file,
    {
      line: (text, lineNo) => {
        if (lineNo <= seen) return;
        seen = lineNo;
        if (text.trim() === '') return;
        const input = parseSignalLine(text);
        if (input === undefined) on.problem(`${file}:${lineNo}: not a JSON line: ${JSON.stringify(text.slice(0, 80))}`);
        const s = input === undefined ? undefined : stateOf(input);
        if (s) on.state(s);
      },
      restart: () => on.problem(`${file}: shrank or was replaced; reading it again from the start`),
      problem: on.problem,
    },
    safetyPollMs,
  );
}
