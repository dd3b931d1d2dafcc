/**
 * Claude Code's session file, <config>/sessions/<pid>.json, as a hint.
 * Undocumented: 2.1.112 writes only {pid, sessionId, cwd, startedAt, kind,
 * entrypoint} (no status: nothing to read); 2.1.332 adds `version`,
 * `status` "idle" | "busy" | "waiting" (the notes also saw "shell"), and
 * `waitingFor` ("permission prompt"), rewritten on each change. So it is read
 * only for versions checked to write it this way, only in that shape, and
 * only as a hint: the watchdog acts on a hint alone only when the screen
 * showed nothing new and the process tree is idle.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { z } from 'zod';
import type { AgentState } from '../core/agent-state.js';
import { homeOf, isJobProcess } from '../adapters/locate.js';
import { beatFor, type BeatTask } from '../util/beat.js';

export const CLAUDE_SESSION_SOURCE = 'claude-session';
/** Versions whose session file was seen to carry `status` as above (2.1.332, and its later patches). */
export const SESSION_STATUS_VERSIONS = '>=2.1.332 <2.2.0';

const SessionFile = z.looseObject({
  pid: z.number().int(),
  sessionId: z.string(),
  version: z.string().optional(),
  status: z.enum(['idle', 'busy', 'waiting', 'shell']).optional(),
  waitingFor: z.string().optional(),
});

export function sessionStatusTrusted(version: string | undefined): boolean {
  const v = version === undefined ? null : semver.coerce(version);
  return v !== null && semver.satisfies(v, SESSION_STATUS_VERSIONS);
}

/** The hint a session file's text gives, or undefined (no status, another shape, a version not checked). */
export function sessionHint(text: string): AgentState | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = SessionFile.safeParse(json);
  if (!r.success || r.data.status === undefined) return undefined;
  // The file says which release wrote it: a newer one may mean something else by the same word.
  if (r.data.version !== undefined && !sessionStatusTrusted(r.data.version)) return undefined;
  const { status, waitingFor } = r.data;
  const state = status === 'waiting' ? 'waiting' : status === 'idle' ? 'idle' : 'working';
  const detail = status === 'waiting' && waitingFor ? `waiting:${waitingFor}` : status;
  return { state, source: CLAUDE_SESSION_SOURCE, detail, hint: true };
}

export interface SessionWatchOptions {
  readonly env: Readonly<Record<string, string>>;
  readonly pid: number;
  readonly everyMs?: number;
  readonly hint: (s: AgentState) => void;
}

/**
 * Polls the job's session file: a stat each second, a read only when its
 * mtime moved, a hint only when the status changed. The file is found by the
 * job's pid (or a process below it, for `npx claude`).
 */
export class SessionWatch {
  private file: string | undefined;
  private mtime = -1;
  private last: string | undefined;
  private busy = false;
  private readonly task: BeatTask;

  constructor(private readonly o: SessionWatchOptions) {
    const every = o.everyMs ?? 1_000;
    this.task = beatFor(every).every(every, () => {
      void this.tick();
      return every;
    });
  }

  private get dir(): string {
    return join(this.o.env.CLAUDE_CONFIG_DIR || join(homeOf(this.o.env), '.claude'), 'sessions');
  }

  stop(): void {
    this.task.dispose();
  }

  /** One look; never throws (a missing folder is a session not yet announced). */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      this.file ??= await this.find();
      if (this.file) await this.read(this.file);
    } catch {
      // Gone between the stat and the read, or half-written: the next look sees it.
    } finally {
      this.busy = false;
    }
  }

  private async find(): Promise<string | undefined> {
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const pid = Number(/^(\d+)\.json$/.exec(name)?.[1]);
      if (pid && (await isJobProcess(pid, this.o.pid))) return join(this.dir, name);
    }
    return undefined;
  }

  private async read(file: string): Promise<void> {
    const m = (await stat(file)).mtimeMs;
    if (m === this.mtime) return;
    this.mtime = m;
    const s = sessionHint(await readFile(file, 'utf8'));
    const key = s && `${s.state}:${s.detail}`;
    if (!s || key === this.last) return;
    this.last = key;
    this.o.hint(s);
  }
}
