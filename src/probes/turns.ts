/**
 * Splitting the stream into turns. Loop counters reset when a person (or the
 * supervisor's nudge) starts a new turn: half of one tool's false trips came
 * within two turns of a user message, so a new instruction is a fresh start.
 */
import type { AgentEvent } from '../core/agent-events.js';
import type { ProbeContext, TurnEndEvent, TurnStartEvent } from './types.js';

export interface Turn {
  /** The turn-start id, or the first event's id when the stream began mid-turn. */
  readonly id: string;
  readonly start: TurnStartEvent | null;
  /** null while the turn is still running (or was cut off by the next turn-start). */
  readonly end: TurnEndEvent | null;
  /** Events between start and end, both excluded. */
  readonly events: readonly AgentEvent[];
}

interface OpenTurn {
  id: string;
  start: TurnStartEvent | null;
  events: AgentEvent[];
}

/**
 * Turns in stream order. Events outside any turn (after a turn-end, before
 * the next turn-start) open an implicit turn without a start: agents act on
 * their own after an interruption or a background notification.
 */
export function turnsOf(events: readonly AgentEvent[]): Turn[] {
  const out: Turn[] = [];
  let open: OpenTurn | null = null;
  const close = (end: TurnEndEvent | null) => {
    if (open) out.push({ id: open.id, start: open.start, end, events: open.events });
    open = null;
  };
  for (const e of events) {
    if (e.kind === 'turn-start') {
      close(null);
      open = { id: e.id, start: e, events: [] };
    } else if (e.kind === 'turn-end') {
      open ??= { id: e.id, start: null, events: [] };
      close(e);
    } else {
      open ??= { id: e.id, start: null, events: [] };
      open.events.push(e);
    }
  }
  close(null);
  return out;
}

/**
 * Did the working tree change during this turn, as far as the caller knows:
 * gitChangedByTurn by the turn's end id or its id, else ctx.gitChanged for
 * the stream's last turn, else unknown.
 */
export function gitChangedFor(turn: Turn, turns: readonly Turn[], ctx: ProbeContext): boolean | null {
  const byTurn = ctx.gitChangedByTurn ?? {};
  for (const key of [turn.end?.id, turn.id]) {
    if (key !== undefined && Object.hasOwn(byTurn, key)) return byTurn[key] ?? null;
  }
  return turns[turns.length - 1] === turn ? ctx.gitChanged : null;
}

/** The id of the last assistant-text in the turn (the final reply), if any. */
export function lastTextOf(turn: Turn): { id: string; index: number } | null {
  for (let i = turn.events.length - 1; i >= 0; i--) {
    const e = turn.events[i]!;
    if (e.kind === 'assistant-text') return { id: e.id, index: i };
  }
  return null;
}
