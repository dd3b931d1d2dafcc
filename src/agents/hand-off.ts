/**
 * The agent's own hand-off: what it wrote after a wrap-up asked for one,
 * kept for the resume card beside nightshift's account. Pure.
 */
import type { AgentEvent } from '../core/agent-events.js';

/** A hand-off longer than this is cut (its start kept: the summary comes first). */
export const HAND_OFF_MAX_CHARS = 4_000;

export class HandOff {
  private asks: string[] = [];
  private parts: string[] = [];

  /** A wrap-up message was typed to the agent. */
  asked(message: string): void {
    this.asks.push(message);
  }

  observe(e: AgentEvent): void {
    if (this.asks.length === 0) return;
    // The agent's reply starts where the message reached it; text written before then was not the hand-off.
    if (e.kind === 'turn-start' && this.asks.some((m) => e.text.includes(m))) this.parts = [];
    else if (e.kind === 'assistant-text' && e.text.trim() !== '') this.parts.push(e.text.trim());
  }

  /** What the agent wrote since it was asked; null when it was never asked or wrote nothing. */
  get text(): string | null {
    const all = this.parts.join('\n\n');
    if (all === '') return null;
    return all.length > HAND_OFF_MAX_CHARS ? `${all.slice(0, HAND_OFF_MAX_CHARS - 1)}…` : all;
  }
}
