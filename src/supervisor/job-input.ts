/** What is typed into a job's terminal, by a person or on their behalf: sent to the PTY and recorded as `i` events. */
import type { Clock } from '../core/clock.js';
import type { PtyPort } from '../pty/pty-port.js';
import { keySequence } from '../core/keys.js';
import type { JobRecording } from '../record/job-recording.js';
import type { PromptRule } from '../core/prompt-match.js';

/** What is written down in place of a secret a person typed. */
export const SECRET_MASK = '***';

export class RecordedInput {
  constructor(
    private readonly pty: PtyPort,
    private readonly cast: JobRecording,
    private readonly clock: Clock,
  ) {}

  /** Text, then Enter unless told otherwise; a secret is recorded as SECRET_MASK, never as typed. */
  async text(text: string, enter = true, secret = false): Promise<void> {
    this.cast.input(this.clock.now(), (secret ? SECRET_MASK : text) + (enter ? '\r' : ''));
    await this.pty.sendText(text, { enter });
  }

  /** A named key (enter, escape, ctrl-c …). */
  key(name: string): void {
    const seq = keySequence(name);
    this.cast.input(this.clock.now(), seq);
    this.pty.write(seq);
  }

  /** Named keys in order, paced as the responder's (a person's choice of the rule's keys); every name is checked first. */
  async keys(names: readonly string[]): Promise<void> {
    this.cast.input(this.clock.now(), names.map(keySequence).join(''));
    await this.pty.sendKeys([...names]);
  }

  /** Keystrokes as they come (attach, the terminal of `run`); at a secret's question, recorded as `*` each, Enter kept. */
  raw(data: string, secret = false): void {
    this.cast.input(this.clock.now(), secret ? data.replace(/[^\r\n]/g, '*') : data);
    this.pty.write(data);
  }

  /** The responder's answer: a marker naming the rule, then its keys. */
  answer(rule: string | null, keys: readonly string[]): void {
    const now = this.clock.now();
    this.cast.marker(now, `answer:${rule}`);
    this.cast.input(now, keys.map(keySequence).join(''));
    void this.pty.sendKeys([...keys]);
  }
}

/** A person's answer: a line prompt whose rule answers with Enter gets the text and Enter; a dialog gets the key alone. */
export function personAnswerKeys(rule: PromptRule | undefined, text: string): { keys: string[]; enter: boolean } {
  const enter = rule ? rule.answer.at(-1)?.toLowerCase() === 'enter' : true;
  return { keys: enter ? [text, 'enter'] : [text], enter };
}
