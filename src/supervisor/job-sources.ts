/**
 * Where a live job's signals come from besides its output: /proc samples of
 * the child, the tool-event file, the agent's own state signals. Each one is
 * a marker in the recording (drills replay it) and a signal to the watchdog.
 */
import type { Clock } from '../core/clock.js';
import type { AgentKind } from '../core/agent-events.js';
import { agentStateMarker, type AgentState } from '../core/agent-state.js';
import { toolMarker, ttyModeMarker, type ToolEvent } from '../core/tool-events.js';
import type { Signal } from '../core/watchdog-types.js';
import { EventFileSource } from '../events/event-file.js';
import { AgentSignals, type AgentLaunch } from '../signals/wire.js';
import type { DisposableStore } from '../util/lifecycle.js';
import type { JobPaths } from './job-dir.js';
import type { JobSpec } from './job-spec.js';
import type { Logger } from './logger.js';
import type { ProcInfo } from '../pty/proctree.js';
import { ProcSampler } from './proc-sampler.js';

export interface SourceHost {
  readonly log: Logger;
  /** Owns what a source opens: released with the job. */
  readonly store: DisposableStore;
  marker(label: string): void;
  observe(signal: Signal): void;
}

/** The child's busy/idle, foreground program and tty reads; `tree` goes to the wrapped-agent finder. */
export function procSampler(pid: number, clock: Clock, host: SourceHost, tree: (t: readonly ProcInfo[]) => void): ProcSampler {
  const sampler = new ProcSampler(pid, clock, {
    busy: (busy) => {
      host.marker(busy ? 'proc:busy' : 'proc:idle');
      host.observe({ kind: 'proc', busy });
    },
    foreground: (program, file) => {
      if (program) host.marker(`fg:${program}`);
      host.observe({ kind: 'foreground', program });
      if (!file) return;
      host.marker(`fg-file:${file}`);
      host.observe({ kind: 'foreground-file', file });
    },
    tree,
    ttyRead: (reading) => {
      host.marker(reading ? 'tty:read' : 'tty:idle');
      host.observe({ kind: 'tty-read', reading });
    },
    ttyMode: (mode) => {
      host.marker(ttyModeMarker(mode));
      host.observe({ kind: 'tty-mode', ...mode });
    },
  });
  host.store.add(() => sampler.stop());
  return sampler;
}

export function toolEvent(host: SourceHost, e: ToolEvent): void {
  host.marker(toolMarker(e));
  host.log.info({ tool: e }, 'tool event');
  host.observe({ kind: 'tool', event: e });
}

export async function attachEventFile(path: string, host: SourceHost): Promise<void> {
  const source = await EventFileSource.open(path);
  host.store.add(() => source.close());
  source.onProblem((m) => host.log.warn({ problem: m }, 'bad tool event'));
  source.onEvent((e) => toolEvent(host, e));
}

/** What the agent says of itself: recorded, then to the watchdog, which may only escalate sooner on it. */
export async function attachAgentSignals(kind: AgentKind, launch: AgentLaunch, spec: JobSpec, paths: JobPaths, pid: number, host: SourceHost): Promise<void> {
  const signals = await AgentSignals.start(kind, launch, spec, paths, pid, {
    state: (s: AgentState) => {
      host.marker(agentStateMarker(s));
      host.log.info({ agent_state: s }, `agent ${s.state} (${s.source}:${s.detail})`);
      host.observe({ kind: 'agent', signal: s });
    },
    problem: (m: string) => host.log.warn({ problem: m }, 'agent signal'),
    isClosed: () => host.store.isDisposed,
  });
  host.store.add(() => signals.close());
}

/**
 * A new prompt candidate gets a fresh /proc sample before it settles, so
 * the responder's foreground check never rests on a sample older than the
 * prompt (a 1 s timer can lag under load).
 */
export class PromptSampler {
  private sampled: string | undefined;

  constructor(
    private readonly sampler: ProcSampler,
    private readonly running: () => boolean,
  ) {}

  candidate(c: { readonly rule: string; readonly since: number } | null): void {
    const key = c ? `${c.rule}@${c.since}` : undefined;
    if (key !== undefined && key !== this.sampled) {
      this.sampler.sampleNow();
      // The program may print its prompt a moment before it calls read(2), and a loaded machine
      // may be slow to get there: look again within the early settle time (EARLY_SETTLE_MS).
      for (const ms of [80, 160, 240]) setTimeout(() => this.running() && this.sampler.sampleNow(), ms).unref();
    }
    this.sampled = key;
  }
}
