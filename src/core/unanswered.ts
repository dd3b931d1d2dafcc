/**
 * `on_unanswered: {after, do: decline}`: a prompt a person was
 * paged for and nobody answered within `after` gets its rule's decline
 * keys. Pure and clock-injected like the watchdog: the host asks
 * nextDeadline() and calls tick() then. It only ever names the decline; a
 * prompt no rule names, or whose rule has no decline keys, is never due.
 */
import type { Clock } from './clock.js';
import type { PromptRule } from './prompt-match.js';
import type { Transition } from './task-state.js';
import type { Action } from './watchdog-types.js';

export interface OnUnanswered {
  readonly afterMs: number;
  readonly do: 'decline';
}

/** The paged prompt the clock runs for. */
export interface OpenPrompt {
  readonly rule: string;
  /** When the person was paged (the escalation). */
  readonly pagedAt: number;
  /** A person's last act on the job since (typing at it, a send): they are there, so the wait starts again. */
  readonly lastPersonAt: number | null;
}

/** When the decline is due, or undefined when it never is. */
export function unansweredDeadline(setting: OnUnanswered | null, open: OpenPrompt | null, rule: PromptRule | undefined): number | undefined {
  if (!setting || !open || !rule || rule.id !== open.rule || rule.decline.length === 0) return undefined;
  return Math.max(open.pagedAt, open.lastPersonAt ?? open.pagedAt) + setting.afterMs;
}

export interface UnansweredHost {
  /** The job's setting now (its own, else its policy file's; a policy reload may change it). */
  setting(): OnUnanswered | null;
  /** The rule the job is blocked on now, if it is blocked on a known prompt. */
  blockedRule(): PromptRule | undefined;
}

export class UnansweredWatch {
  private open: OpenPrompt | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly host: UnansweredHost,
  ) {}

  /** Leaving a block ends its wait, whatever ended it. */
  transition(t: Transition): void {
    if (t.from === 'blocked') this.open = null;
  }

  /**
   * Only a prompt's escalation starts the wait. Any other escalation (a
   * probe while the prompt waits) means something else needs a person:
   * the wait is dropped rather than guessed at.
   */
  action(a: Action): void {
    if (a.kind !== 'escalate') return;
    this.open = a.reason === 'prompt' && a.rule ? { rule: a.rule, pagedAt: a.t, lastPersonAt: null } : null;
  }

  person(): void {
    if (this.open) this.open = { ...this.open, lastPersonAt: this.clock.now() };
  }

  nextDeadline(): number | undefined {
    return unansweredDeadline(this.host.setting(), this.open, this.host.blockedRule());
  }

  /** The rule to decline now, once per paged prompt; null when nothing is due. */
  tick(): string | null {
    const due = this.nextDeadline();
    if (due === undefined || this.clock.now() < due) return null;
    const rule = this.open!.rule;
    this.open = null;
    return rule;
  }
}
