/**
 * Automatic answers: the responder decides on a settled prompt, a prompt is
 * answered at most once (the responder hears when it was asked before), and
 * one still on screen verifyMs after its answer goes to a person.
 */
import type { Candidate } from './screen-asks.js';
import type { ScreenSnapshot } from './screen-snapshot.js';
import type { PromptResponder, ResponderDecision } from './watchdog-types.js';

export class AnswerCheck {
  private pending: { key: string; due: number } | undefined;
  private readonly answered = new Set<string>();

  constructor(
    private readonly responder: PromptResponder,
    /** The job's environment (the responder reads registry settings from it). */
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly verifyMs: number,
  ) {}

  /** The responder's decision on the settled prompt `c`; an answer is judged verifyMs from now. */
  decide(c: Candidate, screen: ScreenSnapshot, foreground: string | null, now: number): ResponderDecision {
    const decision = this.responder.decide({ match: c.match, screen, foreground, env: this.env, askedBefore: this.answered.has(c.key) });
    if (decision.kind === 'answer') {
      this.answered.add(c.key);
      this.pending = { key: c.key, due: now + this.verifyMs };
    }
    return decision;
  }

  /** When the pending answer is judged. */
  get due(): number | undefined {
    return this.pending?.due;
  }

  /** Whether the answer did not take: its prompt (`key` is what is on screen now) is still there when due. */
  failed(key: string | undefined, now: number): boolean {
    const p = this.pending;
    if (!p) return false;
    if (key !== p.key) this.pending = undefined;
    else if (now >= p.due) {
      this.pending = undefined;
      return true;
    }
    return false;
  }
}
