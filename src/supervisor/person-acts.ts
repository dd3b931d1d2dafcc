/**
 * What a person does to a job — answer its prompt, let it go on after a
 * probe blocked it (`continue`), type into it (`send`, `key`, a terminal's
 * keystrokes), cancel it — each recorded as human:<user> before it reaches
 * the job, marked in the recording so drills replay it, and told to the
 * watchdog (a person's act ends a probe's block). The job's handle gives
 * this object whole (`acts`), so a new act is a method here and nothing
 * between it and its command forwards it.
 */
import { PROBE_BLOCK } from '../core/task-state.js';
import { personMarker } from '../core/tool-events.js';
import type { PromptRule } from '../core/prompt-match.js';
import type { Signal } from '../core/watchdog-types.js';
import type { Watchdog } from '../core/watchdog.js';
import { keySequence } from '../core/keys.js';
import { isTerminalReply } from '../core/reply-echo.js';
import { InputError } from '../util/errors.js';
import type { EvidenceLog } from './evidence.js';
import { personAnswerKeys, SECRET_MASK, type RecordedInput } from './job-input.js';
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
  /** Someone is at the job's terminal: on_unanswered waits for them. */
  present(): void;
  /** A person's terminal answered the program's query: it goes where the job's own replies go. */
  terminalReply(reply: string): void;
  /** The job's graceful stop; `cause` becomes its done reason. */
  stop(cause: string): Promise<unknown>;
}

const iso = (t: number) => new Date(t).toISOString();

/**
 * How a person answers: text typed as at the CLI, one named key, or the
 * blocking rule's own `answer` or `decline` keys (the web's buttons, and
 * `on_unanswered`, which only ever declines).
 */
export type AnswerInput = { text: string } | { key: string } | { choice: 'answer' | 'decline' };

/** `human:<user>` for a person's act; a `by` that already names its source (policy:…) is kept. */
export const byLabel = (who: string): string => (/^(human|policy):/.test(who) ? who : `human:${who}`);

export class PersonActs {
  constructor(private readonly host: PersonHost) {}

  /**
   * A person answers the prompt the job is blocked on. Keys are recorded as
   * evidence (who, what) before they are sent. A line prompt whose rule
   * answers with Enter gets the text followed by Enter; a dialog gets the key.
   */
  async answer(input: AnswerInput, who: string): Promise<readonly string[]> {
    const { watchdog, id } = this.host;
    if (watchdog.state !== 'blocked') throw new InputError(`job ${id} is not blocked (it is ${watchdog.state}); nothing to answer`);
    const rule = watchdog.reason.rule ? this.host.rules().find((r) => r.id === watchdog.reason.rule) : undefined;
    const by = byLabel(who);
    if ('text' in input) {
      const { keys, enter } = personAnswerKeys(rule, input.text);
      const secret = this.secretAsked();
      // A secret goes to the program only: evidence, the log, the recording and the reply say it was typed, not what.
      const shown = secret ? keys.map((k) => (k === input.text ? SECRET_MASK : k)) : keys;
      this.recordAnswer(by, shown, secret ? SECRET_MASK : input.text);
      await this.host.typed.text(input.text, enter, secret);
      return this.answered(by, shown);
    }
    const keys = 'key' in input ? [input.key] : ruleKeys(rule, input.choice, id, watchdog.reason.code);
    // A key name that does not exist is refused before anything is recorded or sent.
    for (const k of keys) keySequence(k);
    this.recordAnswer(by, keys, 'key' in input ? input.key : input.choice);
    await this.host.typed.keys(keys);
    return this.answered(by, keys);
  }

  private recordAnswer(by: string, keys: readonly string[], text: string): void {
    this.host.evidence.human(iso(this.host.now()), by, keys, text);
    const policy = by.startsWith('policy:');
    // An automatic act leaves its record or does nothing, as the responder's answers do; a person's own answer goes regardless.
    if (policy && !this.host.evidence.ok) throw new Error(`evidence could not be written; ${by} sends nothing`);
    this.host.log.info({ by, keys }, policy ? `declined by policy (${by}): nobody answered in time` : 'answered by a person');
  }

  private answered(by: string, keys: readonly string[]): readonly string[] {
    this.told('answer', by);
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

  /** Recorded before the keys go, as an answer is: a program that quits on the text (`q`) closes the job's log before the Enter. */
  async send(text: string, enter: boolean, who: string): Promise<void> {
    const secret = this.secretAsked();
    this.acted('send', who, { text: secret ? SECRET_MASK : text });
    await this.host.typed.text(text, enter, secret);
  }

  key(name: string, who: string): void {
    this.host.typed.key(name);
    this.acted('key', who, { key: name });
  }

  /**
   * Keystrokes from the person at the terminal (`attach`, `run`'s own
   * terminal); recorded as input. A line they enter while a probe holds the
   * job is their decision that it goes on, as `send` is. The terminal's own
   * replies to the program's queries are not the person's: they take the
   * job's reply gate and are not recorded.
   */
  input(data: string, who = 'terminal'): void {
    if (isTerminalReply(data)) return this.host.terminalReply(data);
    this.host.typed.raw(data, this.secretAsked());
    this.host.present();
    if (data.includes('\r')) this.typedLine(who);
  }

  /** The job is blocked on a question for a secret (echo off, a password): what a person types there is never written down. */
  private secretAsked(): boolean {
    const { watchdog } = this.host;
    return watchdog.state === 'blocked' && watchdog.reason.class === 'secret';
  }

  /** `cancel`: recorded as the person's, then the graceful stop. */
  cancel(who: string): Promise<unknown> {
    this.note('cancel', who);
    return this.host.stop('cancelled');
  }

  /** This job is a person's `resume` of another: said once, at its start. */
  resumed(who: string, from: string): void {
    this.note('resume', who, { from });
  }

  /** A line typed at the job's terminal (already sent): it counts as the person's act only while a probe holds the job. */
  private typedLine(who: string): void {
    const { watchdog } = this.host;
    if (watchdog.state === 'blocked' && watchdog.reason.code.startsWith(PROBE_BLOCK)) this.acted('type', who, {});
  }

  /**
   * Only recorded (evidence, log, a marker): a `cancel`, whose stop is the
   * job's own (reason `cancelled`), or the `resume` that started this job.
   */
  private note(action: 'cancel' | 'resume', who: string, fields: object = {}): void {
    const by = byLabel(who);
    this.host.evidence.record({ type: 'person', action, by, ...fields, time: iso(this.host.now()) });
    this.host.log.info({ who, ...fields }, `${action} by a person`);
    this.host.marker(personMarker(action, by));
  }

  private acted(action: string, who: string, fields: object): void {
    const by = byLabel(who);
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

/** The blocking rule's answer or decline keys; a prompt no rule names has none, and neither has a rule without `decline`. */
function ruleKeys(rule: PromptRule | undefined, choice: 'answer' | 'decline', id: string, reason: string): string[] {
  if (!rule) throw new InputError(`job ${id} is blocked on ${reason}, which no rule names: there are no ${choice} keys; answer with text or a key`);
  const keys = choice === 'answer' ? rule.answer : rule.decline;
  if (keys.length === 0) throw new InputError(`rule ${rule.id} has no ${choice} keys; answer with text or a key`);
  return [...keys];
}
