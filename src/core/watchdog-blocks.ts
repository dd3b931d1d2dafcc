/**
 * How the watchdog blocks once a verdict fell due: on a known prompt (with
 * the responder's answer or a guarded escalation), on a program's wait for
 * a person, and after a quiet spell (a question, or a hang).
 */
import { bottomText } from './screen-snapshot.js';
import type { Reason } from './task-state.js';
import { promptAction } from './actions.js';
import type { Candidate } from './screen-asks.js';
import { guardedClass, NEVER_ANSWERED, waitKind, waitVerdict } from './input-wait.js';
import type { ResponderDecision, WatchdogRules } from './watchdog-types.js';
import type { Deadlines, WatchdogParts } from './watchdog-deadlines.js';

export class Blocks {
  constructor(
    private readonly w: WatchdogParts,
    private readonly due: Deadlines,
  ) {}

  blockOnWait(now: number): void {
    const { asks, seen, progress } = this.w;
    const kind = waitKind(seen.foreground, asks.readingTty, seen.ttyMode)!;
    const w = waitVerdict(kind, seen.foreground, seen.foregroundFile, bottomText(seen.screen?.rows ?? []) ?? '', seen.ttyMode);
    this.block({ code: 'unknown-prompt', class: w.class, detail: w.detail }, w.prompt, progress.lastNewScreen, now, `wait:${kind}`);
  }

  /** The screen has been quiet for screenQuietMs: decide between question, busy, and hung. */
  inspectQuiet(questions: WatchdogRules['questions'], now: number): void {
    const { asks, seen, v } = this.w;
    const question = asks.question(seen.screen, questions);
    const { tools, lastNewScreen, procBusy } = this.w.progress;
    const toolDuringQuiet = tools.inFlight > 0 || (tools.lastEventAt ?? -Infinity) >= lastNewScreen;
    // A program waiting for an answer reads the terminal; it does not burn CPU.
    if (question && !toolDuringQuiet && !procBusy) {
      // A password's or a host key's question says what it asks, whichever check found it.
      const cls = guardedClass(question.text, asks.readingTty, seen.ttyMode) ?? 'unknown';
      this.block({ code: 'unknown-prompt', class: cls, detail: `question:${question.rule.id}` }, question.text, lastNewScreen, now);
    } else if (tools.inFlight > 0) {
      v.restate({ code: 'quiet-tool-in-flight', detail: tools.inFlightNames().join(',') }, now);
    } else if (procBusy) {
      v.restate({ code: 'quiet-child-busy' }, now);
    } else if (now >= this.due.hangDeadline() && !asks.parked) {
      // A watch mode's footer says more than a hang does: the parked verdict comes at its own time.
      this.block({ code: 'hung', ...(this.w.progress.cycling() ? { detail: 'cycling-screen' } : {}) }, undefined, this.w.progress.lastProgress(), now);
    }
  }

  /** An automatic answer whose prompt is still there after verifyMs goes to a person; it is never sent twice. */
  checkAnswerTookEffect(now: number): void {
    const { asks, seen, v, config } = this.w;
    const c = asks.candidate;
    if (!this.w.answers.failed(c?.key, now) || !c) return;
    const why = `the prompt was still on screen ${config.verifyMs / 1_000}s after the answer`;
    v.act(promptAction(seen.screen, 'escalate', c.match, c.since, now, { layer: 'act', why, class: v.reason.class ?? c.match.rule.class }));
  }

  blockOnPrompt(c: Candidate, now: number): void {
    const { v, seen } = this.w;
    const decision = this.guarded(c, now);
    v.blockOn({ code: 'prompt', key: c.key, since: c.since, at: now }, { code: 'prompt', rule: c.match.rule.id, class: decision.class }, now);
    v.act(promptAction(seen.screen, decision.kind, c.match, c.since, now, decision));
  }

  /**
   * The responder's decision, unless the prompt asks for a secret or for
   * trust in a host key: those go to a person whatever the rule's class.
   */
  private guarded(c: Candidate, now: number): ResponderDecision {
    const { asks, seen } = this.w;
    const cls = guardedClass(c.match.text, asks.readingTty, seen.ttyMode) ?? (NEVER_ANSWERED.has(c.match.rule.class) ? c.match.rule.class : undefined);
    if (!cls) return this.w.answers.decide(c, seen.screen!, seen.foreground, now);
    return { kind: 'escalate', class: cls, layer: 'classify', why: `a ${cls} prompt is never answered automatically`, keys: [], command: null, packages: [] };
  }

  block(reason: Reason, prompt: string | undefined, since: number, now: number, key = reason.code): void {
    this.w.v.block(reason, prompt, since, now, this.w.seen.screen?.rows ?? [], key);
  }
}
