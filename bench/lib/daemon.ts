/** A real `nightshift daemon` on its own state directory, driven over its control socket (src/daemon/client.ts). */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { call } from '../../src/daemon/client.js';
import type { LoopDelayReport } from '../../src/daemon/loop-delay.js';
import { alive, cleanEnv } from './proc.js';
import { sleep } from './stats.js';

export interface BoardJob {
  id: string;
  name: string;
  state: string;
  reason: { code: string; detail?: string; exit_code?: number };
  started: string | null;
  ended: string | null;
  exit: { code: number | null; signal: string | null } | null;
}

export interface Transition {
  job: string;
  time: string;
  state: string;
  reason: { code: string };
}

export interface SpecExtra {
  env?: Record<string, string>;
  cwd?: string;
}

export function spec(name: string, command: string[], cwd: string, env: Record<string, string> = {}) {
  return { name, command, cwd, env, policy: null, rules: null, budgets: { wall_ms: null, tokens: null, no_progress_ms: null }, priority: 0, after: [] };
}

export class Daemon {
  private stderrTail = '';
  private exited = false;
  readonly exit: Promise<void>;

  private constructor(
    readonly state: string,
    readonly child: ChildProcess,
  ) {
    this.exit = new Promise((r) => child.once('exit', () => ((this.exited = true), r())));
    child.stderr!.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString()).slice(-8000)));
  }

  /** Starts `nightshift daemon --state STATE ARGS…` and waits for its start line. `config` is written to STATE/config.yaml first. */
  static async start(root: string, state: string, args: string[] = [], config?: string): Promise<Daemon> {
    mkdirSync(state, { recursive: true, mode: 0o700 });
    if (config !== undefined) writeFileSync(path.join(state, 'config.yaml'), config);
    const child = spawn(process.execPath, [path.join(root, 'bin', 'nightshift.js'), 'daemon', '--state', state, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: cleanEnv(),
    });
    const d = new Daemon(state, child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the daemon did not start within 20 s: ${d.stderrTail}`));
      }, 20_000);
      const onData = () => {
        if (d.stderrTail.includes('nightshift daemon: pid ')) {
          clearTimeout(timer);
          child.stderr!.off('data', onData);
          resolve();
        }
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the daemon exited ${code}: ${d.stderrTail}`));
      });
    });
    return d;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The PTY host's pid (run/ptyhost.lock), or null when none runs. */
  hostPid(): number | null {
    try {
      const pid = Number(readFileSync(path.join(this.state, 'run', 'ptyhost.lock'), 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  call(cmd: string, args: Record<string, unknown> = {}): Promise<unknown> {
    return call(this.state, cmd, args);
  }

  async submit(name: string, command: string[], cwd: string, env: Record<string, string> = {}): Promise<void> {
    await this.call('submit', { spec: spec(name, command, cwd, env) });
  }

  async board(): Promise<BoardJob[]> {
    return ((await this.call('board')) as { jobs: BoardJob[] }).jobs;
  }

  async show(job: string): Promise<{ job: BoardJob; transitions: Transition[]; signals: unknown; pages: Array<{ page: { kind: string } }> }> {
    return (await this.call('show', { job })) as never;
  }

  async loopDelay(reset = false): Promise<LoopDelayReport> {
    return ((await this.call('status', reset ? { reset_loop: true } : {})) as { event_loop: LoopDelayReport }).event_loop;
  }

  /** Polls the board every `everyMs` until `pred` holds; throws after `ms` with the board's states. */
  async waitBoard(pred: (jobs: BoardJob[]) => boolean, ms: number, what: string, everyMs = 250): Promise<BoardJob[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const jobs = await this.board();
      if (pred(jobs)) return jobs;
      if (Date.now() > deadline) {
        const counts: Record<string, number> = {};
        for (const j of jobs) counts[`${j.state}/${j.reason.code}`] = (counts[`${j.state}/${j.reason.code}`] ?? 0) + 1;
        throw new Error(`timed out after ${ms} ms waiting for ${what}; board: ${JSON.stringify(counts)}`);
      }
      await sleep(everyMs);
    }
  }

  /** Stops the daemon and its jobs (stop --now, then SIGKILL), then the PTY host. Never throws. */
  async stop(): Promise<void> {
    const host = this.hostPid();
    if (!this.exited) {
      await this.call('stop', { now: true }).catch(() => this.child.kill('SIGTERM'));
      const gone = await Promise.race([this.exit.then(() => true), sleep(15_000).then(() => false)]);
      if (!gone) {
        this.child.kill('SIGKILL');
        await this.exit;
      }
    }
    // Jobs outlive the daemon in the host; its SIGTERM hangs them up.
    for (const pid of [host, this.hostPid()]) {
      if (pid !== null && alive(pid)) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // Gone already.
        }
      }
    }
  }
}
