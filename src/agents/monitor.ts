/**
 * Turns probe verdicts into responses, layered like the responder:
 *   announce-then-stop → nudge ("continue"), at most 2 per turn; the same
 *     guard failing 3 turns in a row or 6 times in the job → escalate instead;
 *   loops (repeated action/failure, alternation), no progress, fake completion → escalate;
 *   budget overrun → stop;
 *   unverified change → recorded only (the job's summary says unverified).
 * Pure: events and git facts in, responses out; each verdict answered once.
 */
import type { AgentEvent } from '../core/agent-events.js';
import { runProbes, verdictKey, type ProbeContext, type ProbeProfile, type Spent, type Verdict } from '../probes/index.js';
import { verificationOf, type Verification } from '../probes/unverified-change.js';

export type ResponseKind = 'nudge' | 'escalate' | 'stop' | 'record';

export interface MonitorResponse {
  readonly kind: ResponseKind;
  readonly verdict: Verdict;
  readonly why: string;
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

  /** `before`: what the job spent before the first event this monitor sees (an adopted job); its budgets go on from there. */
  constructor(
    private readonly profile: ProbeProfile,
    private readonly before: Spent = { steps: 0, tokens: 0 },
  ) {
    this.steps = before.steps;
    this.tokens = before.tokens;
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
  observe(e: AgentEvent, ctx: ProbeContext): MonitorResponse[] {
    this.events.push(e);
    if (e.kind === 'tool-call') this.steps++;
    if (e.kind === 'usage') this.tokens += e.inputTokens + e.outputTokens;
    if (e.kind === 'turn-end') {
      this.lastFinal = e.finalText;
      this.gitByTurn[e.id] = ctx.gitChanged;
    }
    if (e.kind !== 'tool-result' && e.kind !== 'turn-end' && e.kind !== 'usage') return [];
    const full: ProbeContext = { ...ctx, gitChangedByTurn: { ...this.gitByTurn, ...ctx.gitChangedByTurn }, spentBefore: this.before };
    const fresh = runProbes(this.events, this.profile, full).filter((v) => !this.seen.has(verdictKey(v)));
    for (const v of fresh) this.seen.add(verdictKey(v));
    const out = fresh.map((v) => this.respond(v));
    if (e.kind === 'turn-end' && !fresh.some((v) => v.probe === 'announce-then-stop')) this.guardFailsInARow = 0;
    return out;
  }

  private respond(v: Verdict): MonitorResponse {
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
