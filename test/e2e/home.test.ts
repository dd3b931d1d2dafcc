/**
 * Issue 31, points 2 and 3: a per-user home, a daemon that survives its
 * terminal closing, and no gap while it is replaced. Real daemons, the real
 * PTY host, a real interactive shell in a real PTY, a real webhook receiver.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn as ptySpawn } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { call } from '../../src/daemon/client.js';
import { BIN, runCli, startCli } from '../helpers/cli.js';
import { daemonLog, FAST, processAlive, rawSpec, testScopes, waitUntil, type PageServer } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;
const START_LINE = (l: string) => l.startsWith('nightshift daemon: pid ');

const pageConfig = (url: string) => `notify:\n  repage_after: 1h\n  notifiers:\n    - { kind: webhook, url: "${url}" }\n`;
const ASK = ['bash', '-c', 'read -p "Continue with the upgrade? [y/N] " a; echo "answer=$a"'];

/** A daemon this test started itself (not through Scope): stopped by pid, whatever happened. */
async function stopDaemon(pid: number): Promise<void> {
  for (const sig of ['SIGTERM', 'SIGTERM', 'SIGKILL'] as const) {
    if (!processAlive(pid)) return;
    process.kill(pid, sig);
    await waitUntil(() => !processAlive(pid), 5_000, `daemon ${pid} to exit`).catch(() => undefined);
  }
}

const blockedPage = (hooks: PageServer, name: string) =>
  waitUntil(() => hooks.on('/hook').map((h) => JSON.parse(h.body) as { name: string; state: string }).find((p) => p.name === name && p.state === 'blocked'), SOON, `a page for ${name}`);

describe('issue 31.2: one per-user home', () => {
  it('with no --state every verb finds the same daemon from any folder; the start line names the config read, or where it looked', async (ctx) => {
    const s = scope(ctx);
    const home = s.tempDir();
    const env = { XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config'), NIGHTSHIFT_STATE: undefined };
    const state = join(home, 'state', 'nightshift');
    const [here, there] = [s.tempDir(), s.tempDir()];

    const bare = startCli(['daemon', ...FAST], { cwd: here, env });
    const first = await bare.waitForLine(START_LINE, SOON, 'the start line');
    try {
      expect(first).toContain(`, state ${state}, no config.yaml (looked in ${join(state, 'config.yaml')}, ${join(home, 'config', 'nightshift', 'config.yaml')}), `);
      expect(first).toContain(', adopted 0 job(s), ');
      const board = await runCli(['board', '--json'], { cwd: there, env });
      expect(board.code, board.stderr).toBe(0);
      expect(JSON.parse(board.stdout)).toEqual({ jobs: [] });
      expect((await runCli(['shutdown'], { cwd: there, env })).code).toBe(0);
      expect(await bare.waitExit(SOON)).toEqual({ code: 0, signal: null });
    } finally {
      await stopDaemon(bare.child.pid!);
    }

    // The config folder's config.yaml is read when the state folder has none.
    const hooks = await s.server();
    mkdirSync(join(home, 'config', 'nightshift'), { recursive: true });
    writeFileSync(join(home, 'config', 'nightshift', 'config.yaml'), pageConfig(hooks.url('/hook')));
    const again = startCli(['daemon', ...FAST], { cwd: there, env });
    try {
      const line = await again.waitForLine(START_LINE, SOON, 'the start line');
      expect(line).toContain(`, config ${join(home, 'config', 'nightshift', 'config.yaml')}, `);
      expect(line).toMatch(/, notifiers: webhook$/);
      // The log is written behind the start line: the second start's line, once it is there.
      const logged = await waitUntil(() => daemonLog(state).filter((l) => l.msg === 'daemon started')[1], SOON, 'the second start in the log');
      expect(logged).toMatchObject({ config: join(home, 'config', 'nightshift', 'config.yaml'), adopted: 0 });
    } finally {
      await stopDaemon(again.child.pid!);
    }
  }, 60_000);
});

describe('issue 31.3: a closing terminal never ends supervision', () => {
  it('a daemon started with & in an interactive shell: the terminal closes, the daemon logs the hang-up and still pages a blocked job', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const state = s.stateDir(pageConfig(hooks.url('/hook')));
    const cwd = s.tempDir();
    const home = s.tempDir();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), XDG_STATE_HOME: home, XDG_CONFIG_HOME: home, PS1: '$ ' };
    delete env.NIGHTSHIFT_STATE;
    delete env.NIGHTSHIFT_RULES;
    const shell = ptySpawn('bash', ['--norc', '--noprofile', '-i'], { cwd, env, cols: 200, rows: 40 });
    let pid: number | undefined;
    try {
      shell.write(`'${process.execPath}' '${BIN}' daemon --state '${state}' ${FAST.join(' ')} &\r`);
      pid = await waitUntil(async () => {
        const r = (await call(state, 'board').catch(() => null)) as { jobs: unknown[] } | null;
        return r ? daemonLog(state).find((l) => l.msg === 'daemon started')?.pid as number | undefined : undefined;
      }, SOON, 'the daemon to serve');
      // Closing the terminal as a terminal emulator does: SIGHUP to the shell, which passes it on to its jobs, then
      // the master side closed, so the daemon's stdout and stderr lead nowhere (EIO). Closing the master alone races
      // in bash: its read may see the end of input before the kernel's SIGHUP lands, and a shell that exits on end of
      // input hangs up no job: the daemon then gets no SIGHUP at all, and lives on as well.
      const shellGone = new Promise<void>((res) => shell.onExit(() => res()));
      shell.kill('SIGHUP');
      await shellGone;
      (shell as typeof shell & { destroy(): void }).destroy();
      await waitUntil(() => daemonLog(state).some((l) => l.msg === 'hung up on (SIGHUP): the terminal closed; supervision goes on'), SOON, 'the hang-up in the log', {
        describe: () => `daemon ${pid} ${processAlive(pid!) ? 'alive' : 'gone'}; its log ends: ${daemonLog(state).slice(-5).map((l) => JSON.stringify(l)).join('\n')}`,
      });
      expect(processAlive(pid)).toBe(true);

      await call(state, 'submit', { spec: rawSpec('ask', ASK, cwd) });
      await blockedPage(hooks, 'ask');
      expect(processAlive(pid)).toBe(true);
    } finally {
      shell.kill('SIGKILL');
      if (pid !== undefined) await stopDaemon(pid);
    }
  }, 60_000);
});

describe('issue 31.3: no gap while a daemon is replaced', () => {
  it('calls in a tight loop across daemon --replace (over the socket and through the CLI) all succeed; the new daemon says it adopted the running job', async (ctx) => {
    const s = scope(ctx);
    const state = s.stateDir();
    const cwd = s.tempDir();
    const d1 = await s.daemon(state);
    await d1.submit('long', ['bash', '-c', 'sleep 300'], ['--cwd', cwd]);
    await d1.waitLive('long', SOON);

    let replaced = false;
    const failures: string[] = [];
    const counts = { before: 0, after: 0 };
    const count = () => void counts[replaced ? 'after' : 'before']++;
    // The socket loop: what a script's calls meet, as fast as they come.
    const socketLoop = (async () => {
      for (let i = 0; !replaced || counts.after < 20; i++) {
        const r = i % 25 === 0 ? call(state, 'submit', { spec: rawSpec(`s${i}`, ['true'], cwd) }) : call(state, 'board');
        await r.then(count, (e: Error) => failures.push(`socket ${i}: ${e.message}`));
      }
    })();
    // The CLI loop: submit -- true and board, one after another, as in the report that found the gap.
    const cliLoop = (async () => {
      for (let i = 0; !replaced || counts.after < 20; i++) {
        const r = await d1.ns(i % 2 ? 'board' : 'submit', i % 2 ? ['--json'] : ['--name', `c${i}`, '--cwd', cwd, '--', 'true']);
        if (r.code !== 0) failures.push(`cli ${i}: exit ${r.code}: ${r.stderr}`);
      }
    })();

    const d2 = await s.daemon(state, ['--replace']);
    expect(await d1.proc.waitExit(SOON)).toEqual({ code: 0, signal: null });
    replaced = true;
    await Promise.all([socketLoop, cliLoop]);

    expect(failures).toEqual([]);
    expect(counts.before).toBeGreaterThan(0);
    expect(d2.proc.stderrLines.find(START_LINE)).toContain(', adopted 1 job(s), ');
    await waitUntil(() => daemonLog(state).find((l) => l.msg === 'adopted a job from the PTY host'), SOON, 'the adoption in the log');
    expect(daemonLog(state).filter((l) => l.msg === 'adopted a job from the PTY host').map((l) => l.name)).toEqual(['long']);
    expect(d2.proc.stderr).not.toMatch(/start one with/);
  }, 120_000);
});
