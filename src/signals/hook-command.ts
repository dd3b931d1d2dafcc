/**
 * The shell commands an agent runs to tell nightshift what it does: each
 * appends one JSON line to the job's agent-signals.jsonl. They run on every
 * tool call, so they are plain `sh` (no node start-up), write nothing to
 * stdout (a hook's stdout is a decision to Claude and Gemini: ours never
 * decides anything) and exit 0.
 */

import type { AgentState } from '../core/agent-state.js';

/** A hook's input past this is cut: PostToolUse carries the whole tool output, and we need only its first fields. */
export const HOOK_LINE_CAP = 8192;

/** `'…'` for sh, any character safe inside. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Appends the hook's stdin (its JSON) as one line. The rest of stdin is read
 * to its end, so the agent never writes into a closed pipe (it would report
 * the hook as failed on screen).
 */
export function stdinLineCommand(file: string): string {
  return `{ head -c ${HOOK_LINE_CAP}; echo; } >> ${shQuote(file)}; cat > /dev/null`;
}

/**
 * A notify program's argv (Codex calls it with the JSON as its last
 * argument): appends that argument as a line, then runs `chain` (the user's
 * own notify program) with the same JSON, as Codex would have.
 */
export function argLineCommand(file: string, chain: readonly string[]): string[] {
  const script = `eval "last=\\\${$#}"; printf '%s\\n' "$last" >> ${shQuote(file)}; [ $# -gt 1 ] && exec "$@"; exit 0`;
  return ['sh', '-c', script, 'nightshift-notify', ...chain];
}

/** The same appending hook on each event, in the settings shape Claude and Gemini share. */
export function hooksOn(events: readonly string[], group: Record<string, unknown>): Record<string, unknown[]> {
  return Object.fromEntries(events.map((e) => [e, [group]]));
}

/** States a documented source says (not hints). */
export const saidBy =
  (source: string) =>
  (state: AgentState['state'], detail: string): AgentState => ({ state, source, detail, hint: false });
