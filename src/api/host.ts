/**
 * What a command handler may ask of its daemon, and nothing more: the
 * port handlers depend on instead of the Daemon class (which implements
 * it and stays the one place that builds the parts). A handler's test
 * gives a small fake of this, not a daemon.
 */
import type { z } from 'zod';
import type { Board } from '../board/board.js';
import type { Pager } from '../notify/pager.js';
import type { WebAuth } from '../people/auth-store.js';
import type { JobHandle } from './job-handle.js';
import type { statusSchema, StopMode } from './results.js';

type StatusOut = z.output<typeof statusSchema>;

export interface CommandHost {
  readonly board: Board;
  readonly pager: Pager;
  /** People, tokens and login codes of the web view, and its audit log. */
  readonly webAuth: WebAuth;
  /** Where a person's browser reaches the web view; null: no links, no login URLs. */
  readonly webBaseUrl: string | null;
  /** The job's handle while it is live; undefined while it starts, and for a job this daemon does not run. */
  live(id: string): JobHandle | undefined;
  /** A cancel for a job still starting, kept for when it is live; false when it is not starting. */
  cancelWhileStarting(id: string): boolean;
  /** Starts runnable jobs up to the limit. */
  schedule(): void;
  /** The ceiling on waiting a job submitted without one gets (config.yaml jobs.max_blocked); null = none. */
  readonly maxBlockedMs: number | null;
  /** A drain is on: new submissions wait for the next daemon. */
  readonly draining: boolean;
  readonly runningCount: number;
  stop(mode: StopMode): Promise<void>;
  /** Resolves once what the board says so far is on disk: a reply waits for it. */
  durable(): Promise<void>;

  /** What `status` reports of the daemon itself. */
  readonly opts: { readonly stateDir: string; readonly rulesPath: string; readonly policyPath: string | null; readonly maxRunning: number };
  readonly startedAt: number;
  readonly config: { readonly file: string | null };
  readonly startup: { readonly warnings: string[] };
  readonly adopted: number;
  slotUse(): StatusOut['slots'];
  readonly loopDelay: { report(reset?: boolean): StatusOut['event_loop'] };
}
