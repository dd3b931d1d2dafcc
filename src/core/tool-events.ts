/**
 * One normalised tool-call event. Today it comes from the job's event file
 * (NIGHTSHIFT_EVENTS); agent transcript readers will produce the same shape.
 */
import type { TtyMode } from './input-wait.js';

export interface ToolEvent {
  readonly phase: 'start' | 'finish';
  readonly name: string;
  /** Pairs a finish with its start; optional, names pair when absent. */
  readonly id?: string;
  /** For `finish`: did the call succeed. */
  readonly ok?: boolean;
}

/** Anything that can deliver tool events to a job (event file, transcript). */
export interface ToolEventSource {
  onEvent(listener: (event: ToolEvent) => void): void;
  /** Problems with the source (bad line etc.); never fatal to the job. */
  onProblem(listener: (message: string) => void): void;
  close(): Promise<void>;
}

import { parseAgentStateMarker, type AgentState } from './agent-state.js';

/** The asciicast marker labels that carry tool and process activity. */
export function toolMarker(e: ToolEvent): string {
  return e.phase === 'start' ? `tool:${e.name}` : `tool-done:${e.name}`;
}

/** A person acted on the job (`continue`, `send`, `key`, `answer`): drills replay the end of a probe's block. */
export function personMarker(action: string, by: string): string {
  return `person:${action}:${by}`;
}

/** `tty:mode:line:echo`, `tty:mode:raw:noecho`: the terminal's mode, so drills replay it. */
export function ttyModeMarker(m: TtyMode): string {
  return `tty:mode:${m.canonical ? 'line' : 'raw'}:${m.echo ? 'echo' : 'noecho'}`;
}

export function parseMarker(label: string):
  | { kind: 'tool'; event: ToolEvent }
  | { kind: 'proc'; busy: boolean }
  | { kind: 'exit'; code: number }
  | { kind: 'foreground'; program: string }
  | { kind: 'tty'; reading: boolean }
  | { kind: 'tty-mode'; mode: TtyMode }
  | { kind: 'foreground-file'; file: string }
  | { kind: 'agent'; state: AgentState }
  | { kind: 'person'; action: string; by: string }
  | { kind: 'other'; label: string } {
  const person = /^person:([a-z-]+):(.+)$/.exec(label);
  if (person) return { kind: 'person', action: person[1]!, by: person[2]! };
  const agent = parseAgentStateMarker(label);
  if (agent) return { kind: 'agent', state: agent };
  if (label.startsWith('tool:')) return { kind: 'tool', event: { phase: 'start', name: label.slice(5) } };
  if (label.startsWith('tool-done:')) return { kind: 'tool', event: { phase: 'finish', name: label.slice(10) } };
  if (label === 'proc:busy') return { kind: 'proc', busy: true };
  if (label === 'proc:idle') return { kind: 'proc', busy: false };
  if (label.startsWith('fg:')) return { kind: 'foreground', program: label.slice(3) };
  const mode = /^tty:mode:(line|raw):(echo|noecho)$/.exec(label);
  if (mode) return { kind: 'tty-mode', mode: { canonical: mode[1] === 'line', echo: mode[2] === 'echo' } };
  if (label.startsWith('fg-file:')) return { kind: 'foreground-file', file: label.slice(8) };
  if (label === 'tty:read' || label === 'tty:idle') return { kind: 'tty', reading: label === 'tty:read' };
  const exit = /^exit:(-?\d+)$/.exec(label);
  if (exit) return { kind: 'exit', code: Number(exit[1]) };
  return { kind: 'other', label };
}
