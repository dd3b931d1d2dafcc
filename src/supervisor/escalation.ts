/**
 * An escalation binds: once a probe has blocked the job, the
 * agent must stop spending. What a person would do at the terminal: press
 * the agent's interrupt key (Esc for Claude Code, Codex and Gemini) and
 * check that the turn ended, pressing it again if not; or, for a program
 * with no such key, stop its foreground process group (SIGSTOP) until a
 * person continues it (SIGCONT). Never a typed answer.
 */
import { readFile } from 'node:fs/promises';
import type { AgentKind } from '../core/agent-events.js';
import { parseStat } from '../pty/proctree.js';
import type { OnEscalate } from '../probes/types.js';

/** How long a turn may take to end after Esc before the key is pressed again; agents end theirs within a second. */
export const INTERRUPT_CHECK_MS = 2_000;
/** Esc presses in all; then the job stays blocked (and says so) with the agent still going. */
export const INTERRUPT_TRIES = 3;

export interface EscalationHost {
  readonly pid: number;
  sendKey(name: string): void;
  record(what: object): void;
  log(msg: string, fields?: object): void;
}

export type Binding = Exclude<OnEscalate, 'auto'>;

const HAS_INTERRUPT_KEY: ReadonlySet<AgentKind> = new Set(['claude', 'codex', 'gemini']);

export function bindingFor(kind: AgentKind, setting: OnEscalate): Binding {
  if (setting !== 'auto') return setting;
  return HAS_INTERRUPT_KEY.has(kind) ? 'interrupt' : 'pause';
}

export class EscalationBinder {
  private tries = 0;
  private timer: NodeJS.Timeout | undefined;
  private turnEnded = false;
  private pausedGroup: number | undefined;

  constructor(
    private readonly host: EscalationHost,
    readonly binding: Binding,
  ) {}

  /** The job was just blocked by a probe; `working`: the agent is mid-turn (else its turn is over and it waits at its input). */
  bind(probe: string, working = true): void {
    this.stopChecking();
    this.tries = 0;
    this.turnEnded = !working;
    if (this.binding === 'interrupt' && !working) this.host.record({ type: 'bind', action: 'none', probe, why: 'the turn had ended: the agent waits at its input' });
    else if (this.binding === 'interrupt') this.interrupt(probe);
    else if (this.binding === 'pause') void this.pause(probe);
    else this.host.record({ type: 'bind', action: 'none', probe });
  }

  /** The agent's turn ended (its transcript says so): the interrupt took. */
  onTurnEnded(): void {
    this.turnEnded = true;
    this.stopChecking();
  }

  /** A person continued the job: a paused group goes on. */
  release(): void {
    this.stopChecking();
    const group = this.pausedGroup;
    if (group === undefined) return;
    this.pausedGroup = undefined;
    signalGroup(group, 'SIGCONT');
    this.host.record({ type: 'bind', action: 'resume', group });
  }

  dispose(): void {
    this.stopChecking();
    // A job must never be left stopped: a cancel's SIGTERM would wait for a SIGCONT that never comes.
    this.release();
  }

  private interrupt(probe: string): void {
    this.tries++;
    this.host.sendKey('escape');
    this.host.record({ type: 'bind', action: 'interrupt', key: 'escape', try: this.tries, probe });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.turnEnded) return;
      if (this.tries < INTERRUPT_TRIES) return this.interrupt(probe);
      this.host.log(`the agent's turn did not end after ${INTERRUPT_TRIES} Esc presses; the job stays blocked`, { probe });
      this.host.record({ type: 'bind', action: 'interrupt-failed', tries: this.tries, probe });
    }, INTERRUPT_CHECK_MS);
    this.timer.unref();
  }

  private async pause(probe: string): Promise<void> {
    const group = await foregroundGroup(this.host.pid);
    if (group === undefined || !signalGroup(group, 'SIGSTOP')) {
      this.host.log('could not pause the job: its foreground process group is gone', { probe });
      return;
    }
    this.pausedGroup = group;
    this.host.record({ type: 'bind', action: 'pause', group, probe });
  }

  private stopChecking(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The terminal's foreground process group, from the job's own /proc stat (tpgid). */
async function foregroundGroup(pid: number): Promise<number | undefined> {
  try {
    const info = parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
    return info && info.tpgid > 0 ? info.tpgid : undefined;
  } catch {
    return undefined;
  }
}

function signalGroup(group: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch {
    return false;
  }
}
