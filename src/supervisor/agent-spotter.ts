/**
 * Finds the agent process in a job's tree, from the trees the process
 * sampler already reads (no second poller): the first process of the
 * terminal's foreground group that runs `want` (or any agent, for a job
 * whose command said nothing). Said once, with the agent's own HOME and
 * config-dir variables, then it stops looking.
 */
import type { AgentKind } from '../core/agent-events.js';
import { agentHomeVars, agentOfProcess, foregroundGroup, type AgentHomeVars } from '../pty/agent-proc.js';
import type { ProcInfo } from '../pty/proctree.js';

export interface SpottedAgent {
  readonly kind: AgentKind;
  readonly pid: number;
  /** Undefined when the process's environment could not be read. */
  readonly vars: AgentHomeVars | undefined;
}

export class AgentSpotter {
  private looking = false;
  private done = false;
  /** What each process (pid and comm: an exec changes the comm) was found to run, so /proc is read once per process. */
  private known = new Map<string, AgentKind | undefined>();

  constructor(
    private readonly want: AgentKind | 'any',
    private readonly found: (a: SpottedAgent) => void,
    private readonly procRoot = '/proc',
  ) {}

  /** A fresh tree from the sampler; a look still under way from the last one is not doubled. */
  observe(tree: readonly ProcInfo[]): void {
    if (this.done || this.looking) return;
    this.looking = true;
    void this.look(tree)
      .catch(() => undefined)
      .finally(() => (this.looking = false));
  }

  stop(): void {
    this.done = true;
  }

  private async look(tree: readonly ProcInfo[]): Promise<void> {
    const next = new Map<string, AgentKind | undefined>();
    for (const p of foregroundGroup(tree)) {
      const key = `${p.pid}:${p.comm}`;
      const kind = this.known.has(key) ? this.known.get(key) : await agentOfProcess(p, this.procRoot);
      next.set(key, kind);
      if (kind !== undefined && (this.want === 'any' || kind === this.want)) return this.spot(kind, p.pid);
    }
    // Only the processes still there: a long build's thousands of short-lived children are not kept.
    this.known = next;
  }

  private async spot(kind: AgentKind, pid: number): Promise<void> {
    const vars = await agentHomeVars(pid, this.procRoot);
    if (this.done) return;
    this.done = true;
    this.found({ kind, pid, vars });
  }
}
