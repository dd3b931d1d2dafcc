/**
 * The person side of a live job: what a person may do to it (PersonActs),
 * and the two waits for a person that any act of theirs starts again:
 * on_unanswered's decline and the ceiling on waiting, each a deadline source
 * on the job's timer.
 */
import type { Action } from '../core/watchdog-types.js';
import type { Clock } from '../core/clock.js';
import { CeilingWatch } from './ceiling-watch.js';
import type { JobEvent, JobSink } from './job-events.js';
import { unansweredSink } from './job-sinks.js';
import type { JobOptions } from './job-spec.js';
import { PersonActs, type PersonHost } from './person-acts.js';
import { UnansweredDecline } from './unanswered-decline.js';

export interface PersonSideHost extends Omit<PersonHost, 'id' | 'rules' | 'now' | 'present'> {
  readonly opts: JobOptions;
  readonly clock: Clock;
  /** The ceiling's warning and its stop action go to the job's sinks (job-sinks.ts). */
  emit(e: JobEvent): void;
  screen(): readonly string[];
}

export class PersonSide {
  readonly acts: PersonActs;
  readonly unanswered: UnansweredDecline;
  readonly ceiling: CeilingWatch;

  constructor(host: PersonSideHost) {
    const { opts, clock } = host;
    this.acts = new PersonActs({
      id: opts.paths.id,
      watchdog: host.watchdog,
      typed: host.typed,
      evidence: host.evidence,
      log: host.log,
      agent: () => host.agent(),
      rules: () => opts.bundle.current.rules.prompts,
      now: () => clock.now(),
      marker: (label) => host.marker(label),
      observe: (signal) => host.observe(signal),
      present: () => this.present(),
      terminalReply: (reply) => host.terminalReply(reply),
      stop: (cause) => host.stop(cause),
    });
    this.unanswered = new UnansweredDecline(clock, {
      watchdog: host.watchdog,
      log: host.log,
      setting: () => (opts.onUnanswered !== undefined ? opts.onUnanswered : opts.bundle.current.policy.onUnanswered ?? null),
      rules: () => opts.bundle.current.rules.prompts,
      decline: (by) => this.acts.answer({ choice: 'decline' }, by),
    });
    this.ceiling = new CeilingWatch(clock, {
      afterMs: () => opts.maxBlockedMs ?? null,
      warn: (warning) => host.emit({ kind: 'warning', warning }),
      action: (action) => host.emit({ kind: 'action', action }),
      stop: (cause) => void host.stop(cause),
      screen: () => host.screen(),
    });
  }

  /** A person acted on the job: the waits for one start again. */
  present(): void {
    this.unanswered.watch.person();
    this.ceiling.ceiling.person();
  }

  /** An adopted job's block: the waits go on from the action it was paged for. */
  paged(action: Action): void {
    this.unanswered.watch.action(action);
    this.ceiling.ceiling.action(action);
  }

  /** The waits learn of blocks and pages from the job's events. */
  sinks(): JobSink[] {
    return [unansweredSink(this.unanswered.watch), unansweredSink(this.ceiling.ceiling, 'ceiling')];
  }
}
