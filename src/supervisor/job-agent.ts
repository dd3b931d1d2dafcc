/**
 * Connects a LiveJob to its agent: transcript events become recording
 * markers (so drills replay them), tool events feed the watchdog, probe
 * verdicts become evidence and actions (nudge, escalate, stop), a finished
 * turn ends a job given its task up front, and a stop writes a resume card.
 */
import type { AgentEvent, AgentKind } from '../core/agent-events.js';
import type { ToolEvent } from '../core/tool-events.js';
import type { Action } from '../core/watchdog-types.js';
import type { MonitorResponse } from '../agents/monitor.js';
import type { ProbeProfile } from '../probes/index.js';
import { claimOf } from '../probes/fake-completion.js';
import { BUDGET_OVERRUN, overrunBudget } from '../probes/budget-overrun.js';
import { AgentLedger, LEDGER_FILE } from './agent-ledger.js';
import type { ResumeFrom } from '../board/types.js';
import { AgentWatch, taskUpFront } from './agent-watch.js';
import { openItems, writeResumeCard, type RefusedClaim, type ResumeCard, type StopVerdict } from './resume-card.js';
import { bindingFor, EscalationBinder } from './escalation.js';
import { WRAP_UP, wrapUpText, wrapUpVerdict } from '../agents/wrap-up.js';
import { HandOff } from '../agents/hand-off.js';

/** What job-agent needs from a LiveJob (kept narrow so the two files stay apart). */
export interface AgentHost {
  readonly id: string;
  readonly dir: string;
  readonly name: string | null;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly startedAt: number;
  now(): number;
  marker(label: string): void;
  toolEvent(e: ToolEvent): void;
  action(a: Action): void;
  /** A probe escalated: block the job on it (the watchdog pages); true when the job is now blocked on that probe. */
  block(probe: string, text: string): boolean;
  sendKey(name: string): void;
  verdict(record: object): void;
  sendText(text: string): Promise<void>;
  stop(cause: string): void;
  state(): string;
  /** Why the job is in its state (the watchdog's reason code). */
  reason(): string;
  screen(): readonly string[];
  log(msg: string, fields?: object): void;
}

export const NUDGE_TEXT = 'continue';

export class JobAgent {
  readonly watch: AgentWatch;
  private readonly binder: EscalationBinder;
  /** A probe's escalation binds the job, from the block until a person acts. */
  private holding = false;
  /** The agent is in a turn (working); after its turn ends it waits at its input and there is nothing to interrupt. */
  private inTurn = false;
  private finalText: string | null = null;
  private session: string | null = null;
  /** The verdict that blocked or stopped the job, until the agent starts another turn (a person sent it on). */
  private stoppedBy: StopVerdict | null = null;
  private refused: RefusedClaim | null = null;
  /** What was read and spent, for a daemon that adopts the job after a restart. */
  private readonly ledger: AgentLedger;
  /** The agent's own hand-off, once a wrap-up asked for it. */
  private readonly handOff = new HandOff();

  constructor(
    private readonly host: AgentHost,
    readonly kind: AgentKind,
    private readonly profile: ProbeProfile,
    env: Readonly<Record<string, string>>,
    pid: number,
    private readonly resume: ResumeFrom | null = null,
  ) {
    this.binder = new EscalationBinder(
      { pid, sendKey: (k) => host.sendKey(k), record: (r) => host.verdict({ ...r, agent: kind }), log: (m, f) => host.log(m, f) },
      bindingFor(kind, profile.onEscalate),
    );
    const resumeFrom = resume ? { path: resume.transcript, lines: resume.lines, lastEvent: resume.last_event, ...(resume.adopted ? { adopted: true } : {}) } : undefined;
    const spent = resume?.spent;
    this.watch = new AgentWatch({ kind, cwd: host.cwd, startedAt: host.startedAt, env, argv: host.argv, pid, ...(resumeFrom && { resumeFrom }), ...(spent && { spent }) }, profile, {
      tool: (e) => host.toolEvent(e),
      agentEvent: (e) => this.onEvent(e),
      gitTurn: (turn, changed) => host.marker(`git:${turn}:${changed}`),
      response: (r) => this.onResponse(r),
      problem: (m) => host.log('transcript problem', { problem: m }),
      turnEnded: (text) => this.onTurnEnded(text),
    });
    this.ledger = new AgentLedger(host.dir, this.watch, (e) => host.log('the agent ledger could not be written', { file: LEDGER_FILE, err: e.message }));
  }

  summary() {
    const s = this.watch.monitor.stats;
    return {
      escalated_at_end: this.watch.lastTurnEscalated,
      agent: this.kind,
      transcript: this.watch.transcript,
      final_answer: this.finalText,
      // Nothing changed is nothing verified: a loop of `ls` must not read as verified work.
      verified: s.events === 0 ? null : this.watch.monitor.verification() === 'verified',
      steps: s.steps,
      tokens: s.tokens,
    };
  }

  private onEvent(e: AgentEvent): void {
    this.host.marker(`agent:${JSON.stringify(e)}`);
    this.ledger.note();
    if (e.kind === 'turn-end') {
      this.finalText = e.finalText;
      this.inTurn = false;
      this.binder.onTurnEnded();
    } else if (e.kind === 'turn-start' || e.kind === 'tool-call') {
      this.inTurn = true;
    }
    if (e.kind === 'turn-start') [this.stoppedBy, this.refused] = [null, null];
    this.handOff.observe(e);
    const sid = /^([0-9a-f-]{36})\.jsonl$/.exec(this.watch.transcript?.split('/').pop() ?? '');
    if (sid) this.session = sid[1]!;
  }

  private onResponse(r: MonitorResponse): void {
    const v = r.verdict;
    // The transcript names the verdict's stream: stats counts a verdict once even if two jobs followed one file.
    this.host.verdict({ type: 'verdict', agent: this.kind, probe: v.probe, severity: v.severity, message: v.message, evidence: v.evidence, turn: v.turn, response: r.kind, transcript: this.watch.transcript });
    if (r.kind === 'record') return;
    // An escalation binds: the job is blocked on the probe and the agent is stopped from spending.
    if (r.kind === 'escalate') {
      // A verdict on a finished turn (a refused claim) finds the agent at its input: blocking is enough.
      if (this.host.block(v.probe, r.why)) {
        this.binder.bind(v.probe, this.inTurn);
        // The first verdict is why the job stopped: what the agent does after it does not rewrite the card.
        if (!this.holding) this.stopped(r);
        this.holding = true;
      }
      return;
    }
    // While a verdict binds, a person decides: nothing is typed to the agent (a nudge, a wrap-up).
    if (r.kind === 'nudge' && this.holding) return;
    if (r.kind === 'stop') this.stopped(r);
    const now = this.host.now();
    const typed = r.text ?? NUDGE_TEXT;
    const kind: Action['kind'] = r.kind;
    this.host.action({
      t: now,
      kind,
      rule: null,
      class: null,
      prompt: null,
      text: `${v.probe}: ${r.why}${r.kind === 'nudge' ? ` — sending "${typed}"` : ''}`,
      reason: `probe:${v.probe}`,
      since: now,
      screen: this.host.screen(),
      layer: 'probe',
      why: r.why,
      ...(r.kind === 'nudge' ? { keys: [typed, 'enter'] } : {}),
    });
    if (r.kind === 'nudge') void this.host.sendText(typed);
    if (v.probe === WRAP_UP) this.handOff.asked(typed);
    if (r.kind === 'stop') this.host.stop(`budget:${v.probe === BUDGET_OVERRUN ? overrunBudget(v) : v.probe}`);
  }

  private stopped(r: MonitorResponse): void {
    const v = r.verdict;
    this.stoppedBy = { probe: v.probe, severity: v.severity, message: r.why, response: r.kind, evidence: [...v.evidence], turn: v.turn };
    const claim = v.probe === 'fake-completion' && this.finalText !== null ? claimOf(this.finalText, this.profile.rules.claims) : null;
    this.refused = claim === null ? null : { claim, answer: this.finalText!, why: v.message };
  }

  /**
   * A person acted after an escalation: a paused program runs again. On
   * `continue` (`asItWas`) a turn that had already ended ends the job as it
   * would have: not a success, since its last turn drew the escalation.
   */
  continued(asItWas = false): void {
    this.holding = false;
    this.binder.release();
    if (asItWas && !this.inTurn && this.finalText !== null) this.onTurnEnded(this.finalText);
  }

  dispose(): void {
    this.binder.dispose();
  }

  private onTurnEnded(text: string): void {
    if (!taskUpFront(this.host.argv) || !endsOnTurnEnd(this.host.state(), this.host.reason())) return;
    this.finalText = text;
    // A turn whose end drew an escalation (a refused claim, a loop) is over but not a success; nor is a claim left unchecked.
    const cause = this.watch.lastTurnEscalated ? 'escalated' : this.watch.lastTurnUnverified ? 'unverified' : 'turn-ended';
    this.host.log(`the agent finished its turn and waits at its input: done (${cause})`, { final: text.slice(0, 500) });
    this.host.stop(cause);
  }

  get wrapUpShare(): number | null {
    return this.profile.wrapUp;
  }

  /** The daemon's wall budget reached its reserve: the hand-off is asked for as the step and token budgets' are. */
  wrapUp(usedMs: number, capMs: number): void {
    const verdict = wrapUpVerdict('wall', usedMs, capMs, []);
    this.onResponse({ kind: 'nudge', verdict, why: verdict.message, text: wrapUpText('wall', usedMs, capMs) });
  }

  /** On any stop but success: what a person needs to pick the job up. */
  async writeCard(stopReason: string, detail: string | null, wallMs: number): Promise<void> {
    const artefacts = await this.watch.artefacts();
    const s = this.watch.monitor.stats;
    const verification = this.watch.monitor.verification();
    const pos = this.watch.position;
    const card: ResumeCard = {
      job: this.host.id,
      name: this.host.name,
      agent: this.kind,
      goal: this.resume?.goal || (taskUpFront(this.host.argv) ? this.host.argv.at(-1)! : this.host.argv.join(' ')),
      stop_reason: stopReason,
      stop_detail: detail,
      stopped_by: this.stoppedBy,
      refused_claim: this.refused,
      agent_handoff: this.handOff.text,
      time: new Date(this.host.now()).toISOString(),
      verified: verification === 'verified' ? ['every change was followed by a successful read, test or list'] : [],
      open: [
        ...openItems(this.stoppedBy, this.refused),
        ...(verification === 'unverified' ? ['files were changed with no successful read/test/list afterwards'] : []),
        ...(stopReason === 'unverified' ? ['the claim of done was accepted without a passing check, after the reminders to run one'] : []),
      ],
      budget_used: { wall_ms: wallMs, tokens: s.tokens || null, steps: s.steps },
      step_budget: this.profile.maxSteps,
      token_budget: this.profile.maxTokens,
      artefacts,
      unknown_outcome: s.openCalls,
      command: [...this.host.argv],
      cwd: this.host.cwd,
      session: this.session,
      transcript: pos && { path: pos.path, lines: pos.lines, last_event: pos.lastEvent },
    };
    writeResumeCard(this.host.dir, card);
  }
}

/**
 * Does an agent's finished turn end the job in this state? A running job,
 * yes; so does one judged hung while the turn's end was being confirmed:
 * the quiet was the agent waiting at its input, as its turn's end says. Any
 * other block (a prompt, a probe's verdict) waits for a person.
 */
export function endsOnTurnEnd(state: string, reason: string): boolean {
  return state === 'running' || (state === 'blocked' && reason === 'hung');
}
