/**
 * on_unanswered, live: the pure UnansweredWatch (src/core/unanswered.ts) on
 * the job's deadline timer, and the decline it calls for sent through the
 * same path as a person's answer, recorded as `policy:on-unanswered`.
 */
import type { Clock } from '../core/clock.js';
import type { PromptRule } from '../core/prompt-match.js';
import { UnansweredWatch, type OnUnanswered } from '../core/unanswered.js';
import type { Watchdog } from '../core/watchdog.js';
import { describeError } from '../util/errors.js';
import type { DeadlineSource } from './deadline-timer.js';
import type { Logger } from './logger.js';

export const ON_UNANSWERED_BY = 'policy:on-unanswered';

export interface UnansweredDeclineHost {
  readonly watchdog: Watchdog;
  readonly log: Logger;
  setting(): OnUnanswered | null;
  rules(): readonly PromptRule[];
  /** The rule's decline keys, sent as a person's answer is (evidence first); rejects when they cannot be. */
  decline(by: string): Promise<readonly string[]>;
}

export class UnansweredDecline implements DeadlineSource {
  readonly watch: UnansweredWatch;

  constructor(
    clock: Clock,
    private readonly host: UnansweredDeclineHost,
  ) {
    this.watch = new UnansweredWatch(clock, { setting: () => host.setting(), blockedRule: () => this.blockedRule() });
  }

  nextDeadline(): number | undefined {
    return this.watch.nextDeadline();
  }

  tick(): void {
    const rule = this.watch.tick();
    if (rule) void this.decline(rule);
  }

  private blockedRule(): PromptRule | undefined {
    const { state, reason } = this.host.watchdog;
    if (state !== 'blocked' || reason.code !== 'prompt' || !reason.rule) return undefined;
    return this.host.rules().find((r) => r.id === reason.rule);
  }

  /** The answer path re-checks the block and refuses a rule without decline keys; a refusal leaves the job blocked, a person paged. */
  private async decline(rule: string): Promise<void> {
    try {
      await this.host.decline(ON_UNANSWERED_BY);
    } catch (e) {
      this.host.log.warn({ rule, problem: describeError(e) }, 'on_unanswered: nothing was declined; the job waits for a person');
    }
  }
}
