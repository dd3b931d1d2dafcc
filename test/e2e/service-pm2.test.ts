/**
 * The pm2 ecosystem file of `service install --pm2`, run by a real pm2
 * (installed from npm into a temporary prefix, its home in a temporary
 * folder): the job lives on across `pm2 restart` and `pm2 stop` + `pm2
 * start`, the daemon stops on pm2's SIGINT by itself (detached, not killed
 * after kill_timeout), and the person is paged by the daemon under pm2 when
 * the job blocks. Needs a build first, and the npm registry.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/board/types.js';
import { call } from '../../src/daemon/client.js';
import { readJsonl, runCli } from '../helpers/cli.js';
import { jobPid, processAlive, testScopes, waitUntil } from '../helpers/daemon.js';
import { runTool, type ToolRun } from '../helpers/run-tool.js';

const scope = testScopes();
const PM2_VERSION = '7.0.4';
const SOON = 30_000;
/** Blocks at a [y/N] question once the file `go` appears in its folder. */
const GATED = 'echo working; while [ ! -e go ]; do sleep 0.1; done; read -p "Continue with the upgrade? [y/N] " a; echo "answer=$a"; exit 4';

let root = '';
// XDG_* undefined: the child has none, so `service install` falls back to ~/.config as a new user's would.
let env: Record<string, string | undefined> = {};

function run(cmd: string, args: readonly string[]): Promise<ToolRun> {
  return runTool(cmd, args, { cwd: root, env });
}

async function pm2(...args: string[]): Promise<string> {
  const r = await run(join(root, 'pm2', 'node_modules', '.bin', 'pm2'), args);
  if (r.code !== 0) throw new Error(`pm2 ${args.join(' ')} exited ${r.code}:\n${r.out}`);
  return r.out;
}

/** The nightshift app as `pm2 jlist` shows it. */
async function app(): Promise<{ pid: number; status: string }> {
  const list = JSON.parse(await pm2('jlist')) as Array<{ name: string; pid: number; pm2_env: { status: string } }>;
  const a = list.find((x) => x.name === 'nightshift');
  if (!a) throw new Error(`no nightshift app in pm2: ${JSON.stringify(list.map((x) => x.name))}`);
  return { pid: a.pid, status: a.pm2_env.status };
}

/** A daemon online under pm2 with a pid other than `before`, answering on its socket, with `job` live in it. */
async function onlineAgain(state: string, before: number, job?: string): Promise<number> {
  return waitUntil(
    async () => {
      const a = await app();
      if (a.status !== 'online' || a.pid === before || a.pid === 0) return undefined;
      if (job !== undefined && !(await live(state, job))) return undefined;
      await call(state, 'board');
      return a.pid;
    },
    SOON,
    'the daemon online under pm2',
    { every: 250, describe: async () => `pm2: ${JSON.stringify(await app().catch(String))}\n${errLog()}` },
  );
}

/** The job is wired up inside the daemon (show reports its signals), not only on the board. */
async function live(state: string, name: string): Promise<boolean> {
  return ((await call(state, 'show', { job: name })) as { signals: unknown }).signals !== null;
}

function pm2Log(): string {
  try {
    return readFileSync(join(env.PM2_HOME!, 'pm2.log'), 'utf8');
  } catch {
    return '';
  }
}

/** The daemon's own log lines, oldest first (state/daemon.N.log, pino JSON lines). */
function daemonLogs(state: string): Array<Record<string, unknown>> {
  const files = readdirSync(state).filter((f) => /^daemon\.\d+\.log$/.test(f)).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
  return files.flatMap((f) => readJsonl(join(state, f)));
}

function errLog(): string {
  try {
    return readFileSync(join(env.PM2_HOME!, 'logs', 'nightshift-error.log'), 'utf8');
  } catch {
    return '';
  }
}

async function job(state: string, name: string): Promise<JobRecord> {
  const { jobs } = (await call(state, 'board')) as { jobs: JobRecord[] };
  return jobs.find((j) => j.name === name)!;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ns-pm2-'));
  const keep = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('NIGHTSHIFT_') && k !== 'PM2_HOME')) as Record<string, string>;
  env = { ...keep, HOME: join(root, 'home'), PM2_HOME: join(root, 'pm2-home'), XDG_CONFIG_HOME: undefined, XDG_STATE_HOME: undefined };
  const r = await run('npm', ['install', '--prefix', join(root, 'pm2'), '--no-audit', '--no-fund', `pm2@${PM2_VERSION}`]);
  if (r.code !== 0) throw new Error(`npm install pm2 failed:\n${r.out}`);
}, 180_000);

afterAll(async () => {
  // pm2's own daemon outlives every command: kill it, whatever the test did.
  if (root) await run(join(root, 'pm2', 'node_modules', '.bin', 'pm2'), ['kill']).catch(() => undefined);
  rmSync(root, { recursive: true, force: true, maxRetries: 30, retryDelay: 100 });
}, 30_000);

describe('service install --pm2, run by pm2', () => {
  it('the job survives pm2 restart and pm2 stop/start (adopted, same process), and its block is paged by the daemon under pm2', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const state = s.stateDir(`notify:\n  repage_after: 1h\n  notifiers:\n    - { kind: webhook, url: "${hooks.url('/hook')}" }\n`);
    const cwd = s.tempDir();

    const installed = await runCli(['service', 'install', '--pm2', '--state', state], { env });
    expect(installed.code, installed.stderr).toBe(0);
    const file = join(env.HOME!, '.config', 'nightshift', 'nightshift.config.cjs');
    expect(installed.stdout).toContain(`wrote ${file}\n`);
    expect(installed.stdout).toContain(`pm2 start ${file}\n`);

    await pm2('start', file);
    const d1 = await onlineAgain(state, 0);
    const sub = await runCli(['submit', '--state', state, '--name', 'ask', '--cwd', cwd, '--json', '--', 'bash', '-c', GATED], { env });
    expect(sub.code, sub.stderr).toBe(0);
    await waitUntil(() => live(state, 'ask'), SOON, 'the job live');
    const pid = jobPid(await job(state, 'ask'));

    await pm2('restart', 'nightshift');
    const d2 = await onlineAgain(state, d1, 'ask');
    expect(processAlive(pid), 'the job outlived pm2 restart').toBe(true);
    expect(await job(state, 'ask')).toMatchObject({ state: 'running' });

    await pm2('stop', 'nightshift');
    await waitUntil(async () => (await app()).status === 'stopped' && !processAlive(d2), SOON, 'pm2 stop');
    expect(processAlive(pid), 'the job outlived pm2 stop').toBe(true);
    await pm2('start', 'nightshift');
    await onlineAgain(state, d2, 'ask');

    const a = await job(state, 'ask');
    expect(a.state).toBe('running');
    // Adopted twice, never started again: one process all along.
    const pids = readJsonl(a.paths!.log).filter((l) => l.msg === 'job started' || l.msg === 'job adopted from the PTY host').map((l) => `${String(l.msg)} ${String(l.pid)}`);
    expect(pids).toEqual([`job started ${pid}`, `job adopted from the PTY host ${pid}`, `job adopted from the PTY host ${pid}`]);
    // Each stop ended the daemon by itself on pm2's SIGINT, well inside kill_timeout, not by pm2's SIGKILL.
    // pm2 closes an app's log files on its exit and may drop the line written just before it ("stopped"):
    // pm2's own log and the daemon's are the record of how each stop ended.
    const said = errLog().split('\n').filter((l) => /SIGINT/.test(l));
    expect(said).toEqual(Array(2).fill('nightshift daemon: SIGINT: detaching (jobs run on in the PTY host for the next daemon)'));
    const exits = pm2Log().split('\n').filter((l) => /App \[nightshift:\d+\] exited|SIGKILL/.test(l));
    expect(exits.map((l) => l.replace(/^.*?App/, 'App').replace(/:\d+\]/, ']'))).toEqual(Array(2).fill('App [nightshift] exited with code [0] via signal [SIGINT]'));
    const stops = daemonLogs(state).filter((l) => l.msg === 'daemon stopping' || l.msg === 'daemon stopped').map((l) => `${String(l.msg)}${l.mode ? ` ${String(l.mode)}` : ''}`);
    expect(stops).toEqual(Array(2).fill(['daemon stopping detach', 'daemon stopped']).flat());

    writeFileSync(join(cwd, 'go'), '');
    const [hit] = await hooks.waitHits('/hook', 1, SOON);
    expect(JSON.parse(hit!.body)).toMatchObject({ name: 'ask', state: 'blocked', kind: 'prompt' });
    expect(JSON.parse(hit!.body).prompt).toContain('Continue with the upgrade? [y/N]');

    const answered = await runCli(['answer', '--state', state, 'ask', 'y'], { env });
    expect(answered.code, answered.stderr).toBe(0);
    await waitUntil(async () => (await job(state, 'ask')).state === 'done', SOON, 'the job done');
    expect((await job(state, 'ask')).exit).toEqual({ code: 4, signal: null });
  }, 180_000);
});
