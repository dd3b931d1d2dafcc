/**
 * A board job's pages, as a sink of its events: one page per blocked
 * episode (an escalation), a budget page when a stop trips, a failure page
 * when it ends badly on its own, a page for a warning; the episode's pages
 * resolved when it ends. A page that throws is the sink list's to report.
 */
import type { Transition } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import { isSuccess } from '../core/outcome.js';
import type { JobRecord } from '../board/types.js';
import type { Pager } from '../notify/pager.js';
import type { Page } from '../notify/page.js';
import type { Redactor } from '../notify/secrets.js';
import type { BundleSource } from '../rules/live-bundle.js';
import type { JobEvent, JobSink } from '../supervisor/job-events.js';
import type { JobWarning } from '../supervisor/tree-agent.js';
import { actionPage, cliCommand, PAGE_LOG_LINES, type PageBase } from './job-pages.js';

export interface PageSinkDeps {
  readonly pager: Pager;
  readonly stateDir: string;
  readonly bundle: BundleSource;
  readonly now: () => number;
  readonly onLog: (msg: string, fields?: object) => void;
  readonly redact: Redactor;
  /** The live job's screen rows and state; undefined while it starts (a page then shows no screen). */
  readonly view: () => { readonly rows: readonly string[]; readonly state: string } | undefined;
}

/** How many of the screen's last non-blank rows a page carries: a failure's error and a line or two before it. */
const LAST_LINES = 10;

export class PageSink implements JobSink {
  readonly name = 'pages';
  private episode = 0;
  /** The page key of the block a person was paged for, while it lasts (what a page's Decline must still match). */
  private pagedBlock: string | null = null;
  private tripped = false;

  constructor(
    private readonly record: JobRecord,
    private readonly deps: PageSinkDeps,
  ) {}

  get blockedEpisode(): string | null {
    return this.pagedBlock;
  }

  /**
   * An adopted job: page keys go on from the outbox's last episode, and a
   * job the board has blocked is still in the block that episode paged for,
   * so no second page goes out and a page's Decline still matches it.
   */
  resume(blocked: boolean): void {
    this.episode = this.deps.pager.lastEpisode(this.id);
    this.pagedBlock = blocked && this.episode > 0 ? `${this.id}:${this.episode}` : null;
  }

  event(e: JobEvent): void {
    if (e.kind === 'transition') this.transition(e.transition);
    else if (e.kind === 'action') this.action(e.action);
    else if (e.kind === 'warning') this.pageWarning(e.warning);
  }

  private get id(): string {
    return this.record.id;
  }

  private transition(t: Transition): void {
    if (t.from === 'blocked') this.pagedBlock = null;
    try {
      // An unblocked or ended episode needs no more pages — except the budget page a trip just queued.
      if (!this.tripped && ((t.from === 'blocked' && t.to === 'running') || t.to === 'done')) this.deps.pager.resolve(this.id);
      if (t.to === 'done' && failedOnItsOwn(t.reason)) this.pageFailure(t);
    } catch (e) {
      // The board closed under a job the daemon gave up waiting for (shutdown --now): its own files still have it.
      this.deps.onLog('could not update pages', { job: this.id, err: String(e) });
    }
  }

  private action(a: Action): void {
    // A probe's stop (the step budget) is a budget trip the agent's transcript found: paged as the daemon's own are.
    if (a.kind === 'stop') return this.pageStop(a.reason, a.text);
    if (a.kind !== 'escalate') return;
    this.episode++;
    this.pagedBlock = `${this.id}:${this.episode}`;
    this.deps.pager.page(this.pageFor(a), this.deps.redact);
  }

  /** A job that ended on its own without success (exit ≠ 0, a signal, a verdict that stood) pages once: a person expects to hear of it, and its last lines. */
  private pageFailure(t: Transition): void {
    const lost = t.reason.code === 'lost';
    const escalated = t.reason.code === 'escalated';
    const unverified = t.reason.code === 'unverified';
    const how = lost
      ? `lost: ${t.reason.detail ?? 'its terminal is gone'}`
      : unverified
        ? 'unverified: it claimed done, but no test or check passed after its last change, though reminded'
        : escalated
          ? `its verdict stood: ${t.reason.detail ?? 'its last turn was not accepted'}`
          : t.reason.signal ? `killed by ${t.reason.signal}` : `exit code ${t.reason.exitCode}`;
    const base = this.pageBase();
    const cli = (verb: string) => (verb === 'logs' ? cliCommand(this.deps.stateDir, 'logs', this.record.name, ...PAGE_LOG_LINES) : cliCommand(this.deps.stateDir, verb, this.record.name));
    const ways = [{ label: 'The rest of its output', command: cli('logs') }, { label: 'Details', command: cli('show') }];
    // An escalated or unverified end leaves a resume card: going on from it is the one act left.
    if (escalated || unverified) ways.push({ label: 'Resume it', command: cli('resume') });
    this.deps.pager.page({
      ...base,
      key: `${this.id}:${lost ? 'lost' : 'failed'}`,
      kind: lost ? 'lost' : 'failed',
      state: 'done',
      reason: t.reason.code,
      prompt: lost ? `${this.record.name} ${how}` : `${this.record.name} failed: ${how}`,
      // What it printed last is the failure: shown once, as its last lines.
      screen: [],
      last_lines: base.screen,
      // A lost job went unseen: the person may want to start it again tonight.
      urgent: lost,
      answer_command: ways[0]!.command,
      commands: ways.map((w) => w.command),
      ways,
      once: true,
    }, this.deps.redact);
  }

  /** A budget trip (or the ceiling on waiting): the episode's pages give way to one urgent page, sent once, for the job is ending. */
  pageStop(reason: string, text: string | null): void {
    this.tripped = true;
    this.pagedBlock = null;
    this.deps.pager.resolve(this.id);
    this.episode++;
    const ways = [{ label: 'Details', command: cliCommand(this.deps.stateDir, 'show', this.record.name) }];
    this.deps.pager.page({
      ...this.pageBase(),
      kind: 'budget',
      state: 'done',
      reason,
      prompt: text,
      urgent: true,
      key: `${this.id}:${this.episode}`,
      commands: ways.map((w) => w.command),
      ways,
      once: true,
    }, this.deps.redact);
  }

  /** A page that the disk under the state directory is full: the job goes on, its recording stopped. */
  pageDiskFull(file: string, e: Error): void {
    this.deps.pager.page({
      ...this.pageBase(),
      key: `${this.id}:disk`,
      kind: 'disk',
      reason: 'disk',
      prompt: `cannot write ${file} of ${this.record.name} (${e.message}); the job keeps running, recordings are paused`,
      urgent: true,
    }, this.deps.redact);
  }

  /** Once per job (the ceiling's, once per block): a warning blocks nothing, so it is no episode and not urgent. */
  private pageWarning(w: JobWarning): void {
    const key = w.code === 'unanswered-soon' ? `${this.id}:${this.episode}:${w.code}` : `${this.id}:${w.code}`;
    this.deps.pager.page({ ...this.pageBase(), key, kind: 'other', reason: w.code, prompt: w.message, urgent: false }, this.deps.redact);
  }

  private pageBase(): PageBase {
    const view = this.deps.view();
    const rows = view?.rows.filter((r) => r.trim() !== '') ?? [];
    return {
      job: this.id,
      name: this.record.name,
      state: view?.state ?? 'running',
      rule: null,
      class: null,
      screen: rows.slice(-LAST_LINES),
      answer_command: cliCommand(this.deps.stateDir, 'show', this.record.name),
      time: new Date(this.deps.now()).toISOString(),
    };
  }

  private pageFor(a: Action): Page {
    const rule = this.deps.bundle.current.rules.prompts.find((r) => r.id === a.rule);
    return actionPage(a, this.pageBase(), `${this.id}:${this.episode}`, this.deps.stateDir, rule);
  }
}

/** Ended by itself (not stopped by nightshift or a person) and did not succeed, or ended while a verdict stood. */
function failedOnItsOwn(r: Transition['reason']): boolean {
  return r.code === 'lost' || r.code === 'escalated' || r.code === 'unverified' || ((r.code === 'exit' || r.code === 'signal') && !isSuccess(r));
}
