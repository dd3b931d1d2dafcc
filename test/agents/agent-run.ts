/**
 * Steps the real-agent tests share when they drive a CLI under `nightshift run --json`.
 */
import type { CliProcess, JsonLine } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

/** A `state` line with this state (and reason). */
export const isState = (state: string, reason?: string) => (o: JsonLine) =>
  o.type === 'state' && o.state === state && (reason === undefined || o.reason === reason);

/** Ctrl-C twice leaves Claude Code and the Gemini CLI; it is repeated until the job ends. */
export async function quitWithCtrlC(p: CliProcess, ms: number): Promise<void> {
  await until(() => {
    if (p.exited) return true;
    p.write('\x03');
    return false;
  }, ms, 'exit after ctrl-c', 400);
  await p.waitExit(ms);
}
