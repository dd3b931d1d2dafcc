/**
 * A start that fails at any step releases exactly what it opened, through
 * the same list a stop releases: an in-process Daemon (Daemon.start, as
 * `nightshift daemon` runs it) made to fail before anything is open, after
 * the rules, and after the board, the log, the PTY host, the ballast and a
 * fleet's database are open. Afterwards nothing is left: no lock, no socket,
 * no ballast, no connection keeping the PTY host up, and the next daemon on
 * the same state directory starts and stops cleanly.
 * Needs a build first (npx tsc -p tsconfig.json): the PTY host runs from it.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { Daemon, type DaemonOptions } from '../../src/daemon/daemon.js';
import { defaultPolicyPath } from '../../src/rules/bundle.js';
import { readJsonl } from '../helpers/cli.js';
import { ptyhostPid, testScopes, waitUntil, type Scope } from '../helpers/daemon.js';
import { RULES_DIR } from '../helpers/rules.js';

const scope = testScopes();
const SOON = 15_000;

function options(state: string, more: Partial<DaemonOptions> = {}): DaemonOptions {
  return {
    stateDir: state,
    maxRunning: 2,
    rulesPath: RULES_DIR,
    policyPath: defaultPolicyPath(RULES_DIR),
    config: { screenQuietMs: 1_000, toolGapMs: 2_000, settleMs: 1_000, verifyMs: 5_000 },
    tickMs: 200,
    // A host nobody is connected to exits at once: a connection the failed start kept would keep it up.
    ptyhostArgs: ['--idle', '300ms'],
    ...more,
  };
}

/** A port something else holds, so `--http` on it fails once everything before the web view is open; `free` lets it go. */
async function takenPort(): Promise<{ http: NonNullable<DaemonOptions['http']>; free: () => Promise<void> }> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const http = { host: '127.0.0.1', port: (s.address() as AddressInfo).port, tls: null, loopback: true };
  return { http, free: () => new Promise<void>((resolve) => s.close(() => resolve())) };
}

interface Step {
  /** Where the start fails, and what it had opened by then. */
  readonly at: string;
  /** Sets the failure up; returns the options of the failing start and what makes the next start good again. */
  readonly arrange: (h: Scope, state: string) => Promise<{ opts: DaemonOptions; fix: () => void | Promise<void> }>;
  readonly error: RegExp;
}

const STEPS: Step[] = [
  {
    at: 'bad rules: before anything but the lock',
    arrange: async (h, state) => {
      const rules = join(h.tempDir(), 'rules');
      cpSync(RULES_DIR, rules, { recursive: true });
      appendFileSync(join(rules, 'prompts.yaml'), '\n  - : [unclosed\n');
      return { opts: options(state, { rulesPath: rules, policyPath: defaultPolicyPath(rules) }), fix: () => undefined };
    },
    error: /not valid YAML/,
  },
  {
    at: 'a board that cannot open: after the rules',
    arrange: async (_h, state) => {
      mkdirSync(join(state, 'board.sqlite'));
      return { opts: options(state), fix: () => rmSync(join(state, 'board.sqlite'), { recursive: true }) };
    },
    error: /board\.sqlite/,
  },
  {
    at: '--http on a taken port: after the board, the log, the PTY host, the ballast and the socket commands',
    arrange: async (_h, state) => {
      const { http, free } = await takenPort();
      return { opts: options(state, { http }), fix: free };
    },
    error: /EADDRINUSE|in use/i,
  },
  {
    at: '--http on a taken port on a fleet host: the fleet database too',
    arrange: async (_h, state) => {
      const { http, free } = await takenPort();
      const fleet = { url: 'postgres://nightshift@127.0.0.1:1/nowhere', host: 'teardown' };
      return { opts: options(state, { http, fleet }), fix: free };
    },
    error: /EADDRINUSE|in use/i,
  },
];

describe('a failed start releases what it opened, as a stop does', () => {
  it.for(STEPS)('$at', { timeout: 60_000 }, async ({ arrange, error }: Step, ctx: TestContext) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const run = join(state, 'run');
    const { opts, fix } = await arrange(h, state);

    await expect(Daemon.start(opts)).rejects.toThrow(error);
    // Nothing of the daemon is left in its run directory: no lock, no socket (nor its temporary name), no ballast.
    expect(readdirSync(run).filter((f) => !f.startsWith('ptyhost'))).toEqual([]);
    // The PTY host, if the start had reached it, is left with no client: it idles out.
    await waitUntil(() => ptyhostPid(state) === null, SOON, 'the PTY host to idle out with no daemon connected');

    await fix();
    const next = await Daemon.start(options(state));
    expect(readdirSync(run).sort()).toEqual(expect.arrayContaining(['ballast', 'daemon.lock', 'nightshift.sock']));
    await next.stop('now');
    expect(readdirSync(run).filter((f) => !f.startsWith('ptyhost'))).toEqual([]);
    expect(existsSync(join(run, 'daemon.lock'))).toBe(false);
    // One log for both, and only the stop says "daemon stopped", last.
    const logs = () => readdirSync(state).filter((f) => /^daemon\.\d+\.log$/.test(f));
    const said = await waitUntil(() => {
      const msgs = logs().flatMap((f) => readJsonl(join(state, f)).map((l) => l.msg));
      return msgs.at(-1) === 'daemon stopped' && msgs;
    }, SOON, 'the log to end with "daemon stopped"', { describe: () => logs().join(', ') });
    expect(logs()).toHaveLength(1);
    expect(said.filter((m) => m === 'daemon started' || m === 'daemon stopped')).toEqual(['daemon started', 'daemon stopped']);
  });
});
