/** What a daemon is started with: the CLI's flags, resolved (src/cli/daemon.ts). */
import type { WatchdogConfig } from '../core/watchdog-types.js';
import type { ListenPlan } from '../web/listen.js';

export interface DaemonOptions {
  readonly stateDir: string;
  readonly maxRunning: number;
  readonly rulesPath: string;
  readonly policyPath: string | null;
  readonly config: WatchdogConfig;
  /** How often queued jobs and the pager's outbox are looked at. */
  readonly tickMs: number;
  /** Recording cap per job, bytes (default: the CastWriter's). */
  readonly recordingCap?: number;
  /** Serve the web view and the HTTP API (`--http`); null: off. */
  readonly http?: ListenPlan | null;
  /** A problem a person must see now (a broken rules edit): the daemon's stderr. */
  readonly onProblem?: (message: string) => void;
  /** Extra arguments for a PTY host this daemon starts (tests: a short --idle). */
  readonly ptyhostArgs?: string[];
  /** `--board postgres://… --host NAME`: this daemon is one host of a fleet (src/fleet/). */
  readonly fleet?: { readonly url: string; readonly host: string } | null;
}
