/** summary.json: the job at a glance, rewritten atomically on every change. */
import { exitStatus } from '../core/outcome.js';
import type { Reason, Transition } from '../core/task-state.js';
import { redactDeep, type Redactor } from '../notify/secrets.js';
import { readFileSync } from 'node:fs';
import { AtomicFile } from '../util/atomic-write.js';
import type { JobPaths } from './job-dir.js';
import type { JobSpec } from './job-spec.js';

interface SummaryTransition {
  time: string;
  state: string;
  reason: string;
  rule?: string;
  class?: string;
  detail?: string;
}

export class JobSummary {
  private readonly file: AtomicFile;
  private readonly data: {
    id: string;
    name: string | null;
    command: string[];
    cwd: string;
    started: string;
    ended: string | null;
    state: string;
    reason: string;
    exit: { code: number; signal: string | null } | null;
    transitions: SummaryTransition[];
    files: Record<string, string>;
    final_screen?: string;
    agent?: Record<string, unknown>;
  };

  constructor(
    paths: JobPaths,
    spec: JobSpec,
    startMs: number,
    /** The job's Redactor, for what came from the job: command, transitions, final screen, agent summary. */
    private readonly redact?: Redactor,
    /** A rewrite failed (a full disk): the previous summary.json stays whole (atomic rename). */
    private readonly onProblem?: (e: Error) => void,
    /** 'resume': an adopted job; its transitions so far are kept from the file. */
    mode: 'new' | 'resume' = 'new',
  ) {
    this.file = new AtomicFile(paths.summary, (e) => this.onProblem?.(e));
    this.data = {
      id: paths.id,
      name: spec.name ?? null,
      command: [spec.command, ...spec.args],
      cwd: spec.cwd,
      started: new Date(startMs).toISOString(),
      ended: null,
      state: 'queued',
      reason: 'submitted',
      exit: null,
      transitions: [],
      files: {
        recording: paths.recording,
        events: paths.events,
        log: paths.log,
        evidence: paths.evidence,
      },
    };
    if (mode === 'resume') this.keepFrom(paths.summary);
    this.write();
  }

  /** What the previous daemon wrote of this job (a file that will not read leaves a fresh summary). */
  private keepFrom(file: string): void {
    try {
      const old = JSON.parse(readFileSync(file, 'utf8')) as Partial<typeof this.data>;
      if (typeof old.started === 'string') this.data.started = old.started;
      if (Array.isArray(old.transitions)) this.data.transitions = old.transitions;
      if (typeof old.state === 'string') this.data.state = old.state;
      if (typeof old.reason === 'string') this.data.reason = old.reason;
    } catch {
      // Missing or torn: the board still has every transition.
    }
  }

  transition(t: Transition): void {
    const r = t.reason;
    this.data.state = t.to;
    this.data.reason = r.code;
    this.data.transitions.push({
      time: new Date(t.t).toISOString(),
      state: t.to,
      reason: r.code,
      ...(r.rule ? { rule: r.rule } : {}),
      ...(r.class ? { class: r.class } : {}),
      ...(r.detail ? { detail: r.detail } : {}),
    });
    this.write();
  }

  /** `reason` is the done reason: its exit status is the job's (src/core/outcome.ts). */
  finish(reason: Reason, endMs: number, finalScreen: string, agent?: Record<string, unknown>): void {
    this.data.ended = new Date(endMs).toISOString();
    this.data.exit = { code: exitStatus(reason), signal: reason.signal ?? null };
    this.data.final_screen = finalScreen;
    if (agent) this.data.agent = agent;
    this.write();
  }

  private write(): void {
    const r = this.redact;
    const d = this.data;
    const out = r
      ? { ...d, command: d.command.map(r), transitions: redactDeep(d.transitions, r), final_screen: d.final_screen === undefined ? undefined : r(d.final_screen), agent: redactDeep(d.agent, r) }
      : d;
    this.file.write(`${JSON.stringify(out, null, 2)}\n`);
  }

  /** Resolves when summary.json holds the newest content (it is written from the thread pool). */
  flushed(): Promise<void> {
    return this.file.flushed();
  }
}
