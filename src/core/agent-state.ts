/**
 * What an agent says about itself, apart from its screen: Claude Code's
 * hooks (Notification, PreToolUse, Stop), its session file's `status`,
 * Codex's notify program, Gemini's hooks. One shape for all of them, so the
 * watchdog and the drills read them alike.
 *
 * Authority: the screen stays the authority for answering. An
 * agent state may make nightshift escalate sooner; nothing here can make it
 * answer. A `hint` (an undocumented source such as Claude's session file)
 * never acts alone: it blocks only on a screen that showed nothing new for
 * the settle time and an idle process tree.
 */
export type AgentActivity = 'waiting' | 'working' | 'idle';

export interface AgentState {
  /** waiting: for a person's decision (permission, a question); working: it went on; idle: at its input. */
  readonly state: AgentActivity;
  /** Where it came from: `claude-hook`, `claude-session`, `codex-notify`, `gemini-hook`… */
  readonly source: string;
  /** The source's own word for it (`permission_prompt`, `waiting`, `PreToolUse`…). */
  readonly detail: string;
  /** An undocumented source: escalate on it only with a still screen and an idle process tree. */
  readonly hint: boolean;
}

const MARKER = 'agent-state:';
const ACTIVITIES: readonly string[] = ['waiting', 'working', 'idle'];

/** The recording marker for a state, so drills replay what the agent said when it said it. */
export function agentStateMarker(s: AgentState): string {
  return `${MARKER}${s.state}:${s.hint ? 'hint' : 'said'}:${s.source}:${s.detail}`;
}

/** The state a marker carries, or undefined when the label is not one. */
export function parseAgentStateMarker(label: string): AgentState | undefined {
  if (!label.startsWith(MARKER)) return undefined;
  const [state, weight, source, ...rest] = label.slice(MARKER.length).split(':');
  if (!state || !ACTIVITIES.includes(state) || (weight !== 'hint' && weight !== 'said') || !source) return undefined;
  return { state: state as AgentActivity, source, detail: rest.join(':'), hint: weight === 'hint' };
}

/** The blocked reason's detail: `claude-hook:permission_prompt`. */
export const agentStateDetail = (s: AgentState): string => `${s.source}:${s.detail}`;
