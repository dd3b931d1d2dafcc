/**
 * What a person does to a job — answer its prompt, let it go on after a
 * probe blocked it (`continue`), type into it (`send`, `key`) — each recorded
 * as human:<user> before it reaches the job, marked in the recording so
 * drills replay it, and told to the watchdog (a person's act ends a probe's
 * block).
 */
import { PROBE_BLOCK } from '../core/task-state.js';
import { personMarker } from '../core/tool-events.js';
import type { PromptRule } from '../core/prompt-match.js';
import type { Signal } from '../core/watchdog-types.js';
import type { Watchdog } from '../core/watchdog.js';
import { InputError } from '../util/errors.js';
import type { EvidenceLog } from './evidence.js';
import { personAnswerKeys, type RecordedInput } from './job-input.js';
import type { JobAgent } from './job-agent.js';
import type { Logger } from './logger.js';

/** What PersonActs needs from its LiveJob. */
export interface PersonHost {
  readonly id: string;
  readonly watchdog: Watchdog;
  readonly typed: RecordedInput;
  readonly evidence: EvidenceLog;
  readonly log: Logger;
  agent(): JobAgent | undefined;
  rules(): readonly PromptRule[];
  now(): number;
  marker(label: string): void;
  observe(signal: Signal): void;
}

const iso = (t: number) => new Date(t).toISOString();

export class PersonActs {
  constructor(private readonly host: PersonHost) {}

  /**
   * A person answers the prompt the job is blocked on. Keys are recorded as
   * evidence (who, what) before they are sent. A line prompt whose rule
   * answers with Enter gets the text followed by Enter; a dialog gets the key.
   */
  async answer(text: string, who: string): Promise<readonly string[]> {
    const { watchdog, id } = this.host;
    if (watchdog.state !== 'blocked') throw new InputError(`job ${id} is not blocked (it is ${watchdog.state}); nothing to answer`);
    const rule = watchdog.reason.rule ? this.host.rules().find((r) => r.id === watchdog.reason.rule) : undefined;
    const { keys, enter } = personAnswerKeys(rule, text);
    this.host.evidence.human(iso(this.host.now()), who, keys, text);
    this.host.log.info({ who, keys }, 'answered by a person');
    await this.host.typed.text(text, enter);
    this.told('answer', `human:${who}`);
    return keys;
  }

  /** The job goes on after a probe blocked it: a paused program resumes, the agent keeps its session, the block ends. */
  continueJob(who: string): void {
    const { watchdog, id } = this.host;
    if (!watchdog.reason.code.startsWith(PROBE_BLOCK) || watchdog.state !== 'blocked') {
      throw new InputError(`job ${id} is not blocked by a probe (it is ${watchdog.state}: ${watchdog.reason.code}); nothing to continue`);
    }
    this.acted('continue', who, { reason: watchdog.reason.code });
  }

  async send(text: string, enter: boolean, who: string): Promise<void> {
    await this.host.typed.text(text, enter);
    this.acted('send', who, { text });
  }

  key(name: string, who: string): void {
    this.host.typed.key(name);
    this.acted('key', who, { key: name });
  }

  /** A line typed at the job's terminal (already sent): it counts as the person's act only while a probe holds the job. */
  typedLine(who: string): void {
    const { watchdog } = this.host;
    if (watchdog.state === 'blocked' && watchdog.reason.code.startsWith(PROBE_BLOCK)) this.acted('type', who, {});
  }

  /**
   * Only recorded (evidence, log, a marker): a `cancel`, whose stop is the
   * job's own (reason `cancelled`), or the `resume` that started this job.
   */
  note(action: 'cancel' | 'resume', who: string, fields: object = {}): void {
    const by = `human:${who}`;
    this.host.evidence.record({ type: 'person', action, by, ...fields, time: iso(this.host.now()) });
    this.host.log.info({ who, ...fields }, `${action} by a person`);
    this.host.marker(personMarker(action, by));
  }

  private acted(action: string, who: string, fields: object): void {
    const by = `human:${who}`;
    this.host.evidence.record({ type: 'person', action, by, ...fields, time: iso(this.host.now()) });
    this.host.log.info({ who, action }, `${action} by a person`);
    this.told(action, by);
  }

  /** The recording and the watchdog hear of it; a paused agent runs again (`continue`: as it was). */
  private told(action: string, by: string): void {
    this.host.marker(personMarker(action, by));
    this.host.observe({ kind: 'person', action, by });
    this.host.agent()?.continued(action === 'continue');
  }
}
