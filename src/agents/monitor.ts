/**
 * Turns probe verdicts into responses, layered like the responder:
 *   announce-then-stop → nudge ("continue"), at most 2 per turn; the same
 *     guard failing 3 turns in a row or 6 times in the job → escalate instead;
 *   loops (repeated action/failure, alternation), no progress, fake completion → escalate;
 *   budget overrun → stop;
 *   unverified change → recorded only (the job's summary says unverified);
 *   a claim of done with no check since the last change → a reminder naming
 *     the project's check (verify-gate.ts), at most verifyReminders; then the
 *     turn is marked unverified (recorded);
 *   a budget at its wrap-up share → one request for a hand-off (wrap-up.ts).
 * Pure: events and git facts in, responses out; each verdict answered once.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { runProbes, verdictKey, type ProbeContext, type ProbeProfile, type Spent, type Verdict } from '../probes/index.js';
import { verificationOf, type Verification } from '../probes/unverified-change.js';
import { writes } from '../probes/roles.js';
import { resultsOf } from '../probes/steps.js';
import { turnsOf } from '../probes/turns.js';
import { verifyGate } from './verify-gate.js';
import { wrapUpDue, wrapUpText, wrapUpVerdict, type WrapBudget } from './wrap-up.js';

export type ResponseKind = 'nudge' | 'escalate' | 'stop' | 'record';

export interface MonitorResponse {
  readonly kind: ResponseKind;
  readonly verdict: Verdict;
  readonly why: string;
  /** What a nudge types (default: NUDGE_TEXT, "continue"): a reminder or a wrap-up says more. */
  readonly text?: string;
  /** A claim of done accepted without a check though reminded: the turn's end is no clean success. */
  readonly unverified?: boolean;
}

/** What the caller measured at a turn's end besides git. */
export interface MonitorContext extends ProbeContext {
  /** The project's own check (`npm test`); null or absent: none named, no reminders. */
  readonly projectCheck?: string | null;
}

export const NUDGES_PER_TURN = 2;
export const GUARD_FAILS_IN_A_ROW = 3;
export const GUARD_FAILS_PER_JOB = 6;

const ESCALATE = new Set(['repeated-action', 'repeated-failure', 'alternation', 'no-progress', 'fake-completion']);

export class AgentMonitor {
  private readonly events: AgentEvent[] = [];
  private readonly seen = new Set<string>();
  private readonly nudgesByTurn = new Map<string, number>();
  private guardFailsInARow = 0;
  private guardFailsTotal = 0;
  private tokens: number;
  private steps: number;
  private lastFinal: string | null = null;
  private unverified = false;
  /** Git facts of every finished turn: re-running the probes must not forget earlier turns' writes. */
  private readonly gitByTurn: Record<string, boolean | null> = {};
  private reminded = 0;
  /** Budgets whose hand-off was asked for (once each per job). */
  private readonly wrapped = new Set<WrapBudget>();
  /** What the monitor asked to be typed (reminders, wrap-ups): a turn they open answers them, not the task. */
  private readonly asked = new Set<string>();

  /** `before`: what the job spent before the first event this monitor sees (an adopted job); its budgets go on from there. */
  constructor(
    private readonly profile: ProbeProfile,
    private readonly before: Spent = { steps: 0, tokens: 0 },
  ) {
    this.steps = before.steps;
    this.tokens = before.tokens;
    // An adopted job already past its reserve was asked by the daemon before this one.
    for (const b of ['steps', 'tokens'] as const) if (this.due(b)) this.wrapped.add(b);
  }

  get stats() {
    return { steps: this.steps, tokens: this.tokens, finalText: this.lastFinal, unverified: this.unverified, events: this.events.length, openCalls: this.openCalls() };
  }

  /** Whether the job's changes were checked (unverified-change.ts); computed when asked, at the job's end. */
  verification(): Verification {
    return verificationOf(this.events, this.profile);
  }

  /** Tool calls nobody saw return: their outcome is unknown. */
  private openCalls(): string[] {
    const done = new Set(this.events.flatMap((e) => (e.kind === 'tool-result' ? [e.callId] : [])));
    return this.events.flatMap((e) => (e.kind === 'tool-call' && !done.has(e.id) ? [e.canonical.slice(0, 200)] : []));
  }

  /** Feeds one event; probes run when a tool result, usage or turn end arrives. */
  observe(e: AgentEvent, ctx: MonitorContext): MonitorResponse[] {
    this.events.push(e);
    if (e.kind === 'tool-call') this.steps++;
    if (e.kind === 'usage') this.tokens += e.inputTokens + e.outputTokens;
    if (e.kind === 'turn-end') {
      this.lastFinal = e.finalText;
      this.gitByTurn[e.id] = ctx.gitChanged;
    }
    const wrapUps = this.wrapUps(e);
    if (e.kind !== 'tool-result' && e.kind !== 'turn-end' && e.kind !== 'usage') return wrapUps;
    const full: ProbeContext = { ...ctx, gitChangedByTurn: { ...this.gitByTurn, ...ctx.gitChangedByTurn }, spentBefore: this.before };
    const fresh = runProbes(this.events, this.profile, full).filter((v) => !this.seen.has(verdictKey(v)));
    for (const v of fresh) this.seen.add(verdictKey(v));
    const out = fresh.map((v) => this.respond(v));
    if (e.kind === 'turn-end' && !fresh.some((v) => v.probe === 'announce-then-stop')) this.guardFailsInARow = 0;
    // A turn already nudged, escalated or stopped is not up for acceptance.
    if (e.kind === 'turn-end' && !out.some((r) => r.kind !== 'record')) out.push(...this.gate(ctx.projectCheck ?? null));
    return [...out, ...wrapUps];
  }

  private openedByUs(turn: string | null): boolean {
    const start = this.events.find((e) => e.id === turn);
    return start?.kind === 'turn-start' && this.asked.has(start.text.trim());
  }

  /** Whether a successful write came before the turn. */
  private wroteBefore(turn: string | null): boolean {
    const at = this.events.findIndex((e) => e.id === turn);
    return at > 0 && turnsOf(this.events.slice(0, at)).some((t) => resultsOf(t, this.profile.rules).some((r) => r.result.ok && writes(r.info)));
  }

  /** Verify before accepting: a reminder, the unverified mark, or nothing. */
  private gate(check: string | null): MonitorResponse[] {
    const d = verifyGate({ events: this.events, rules: this.profile.rules, check, reminded: this.reminded, maxReminders: this.profile.verifyReminders });
    if (d === null) return [];
    if (d.kind === 'unverified') return [{ kind: 'record', verdict: d.verdict, why: `${d.verdict.message}; reminded ${this.reminded} time(s): accepted as unverified`, unverified: true }];
    this.reminded++;
    this.asked.add(d.text);
    return [{ kind: 'nudge', verdict: d.verdict, why: d.verdict.message, text: d.text }];
  }

  private due(b: 'steps' | 'tokens'): boolean {
    const [used, cap] = b === 'steps' ? [this.steps, this.profile.maxSteps] : [this.tokens, this.profile.maxTokens];
    return wrapUpDue(used, cap, this.profile.wrapUp);
  }

  /** The step and token budgets' reserves, each asked for once. */
  private wrapUps(e: AgentEvent): MonitorResponse[] {
    if (e.kind !== 'tool-call' && e.kind !== 'usage') return [];
    const b = e.kind === 'tool-call' ? 'steps' : 'tokens';
    if (this.wrapped.has(b) || !this.due(b)) return [];
    this.wrapped.add(b);
    const [used, cap] = b === 'steps' ? [this.steps, this.profile.maxSteps] : [this.tokens, this.profile.maxTokens];
    const verdict = wrapUpVerdict(b, used, cap, [e.id]);
    const text = wrapUpText(b, used, cap);
    this.asked.add(text);
    return [{ kind: 'nudge', verdict, why: verdict.message, text }];
  }

  private respond(v: Verdict): MonitorResponse {
    // A claim in a turn a reminder or wrap-up opened is about the job's earlier work, judged by the gate, not the turn alone.
    if (v.probe === 'fake-completion' && this.openedByUs(v.turn) && this.wroteBefore(v.turn)) return { kind: 'record', verdict: v, why: `${v.message}; the turn answered nightshift's own message, and the job changed files before it` };
    if (v.probe === 'budget-overrun') return { kind: 'stop', verdict: v, why: v.message };
    if (v.probe === 'unverified-change') {
      this.unverified = true;
      return { kind: 'record', verdict: v, why: v.message };
    }
    if (v.probe === 'announce-then-stop') return this.nudgeOrEscalate(v);
    if (ESCALATE.has(v.probe)) return { kind: 'escalate', verdict: v, why: v.message };
    return { kind: 'record', verdict: v, why: v.message };
  }

  private nudgeOrEscalate(v: Verdict): MonitorResponse {
    this.guardFailsInARow++;
    this.guardFailsTotal++;
    const turn = v.turn ?? 'job';
    const used = this.nudgesByTurn.get(turn) ?? 0;
    if (this.guardFailsInARow >= GUARD_FAILS_IN_A_ROW || this.guardFailsTotal >= GUARD_FAILS_PER_JOB) {
      return { kind: 'escalate', verdict: v, why: `${v.message}; announced and stopped ${this.guardFailsInARow} turn(s) in a row, ${this.guardFailsTotal} in the job: stop nudging` };
    }
    if (used >= NUDGES_PER_TURN) return { kind: 'escalate', verdict: v, why: `${v.message}; already nudged ${used} times this turn` };
    this.nudgesByTurn.set(turn, used + 1);
    return { kind: 'nudge', verdict: v, why: v.message };
  }
}
