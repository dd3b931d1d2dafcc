/**
 * Issue 10.5, wrapped agents, under the daemon. (1) The REAL Claude Code
 * 2.1.112, offline, started by a `launch.sh` that gives it its own HOME and
 * submitted WITHOUT --agent: the job is found to run claude from its process
 * tree, its transcript is followed under the wrapper's HOME (not the
 * daemon's), and a probe works on it (a loop of identical failing calls
 * blocks the job on probe:repeated-…). (2) A job said to run claude
 * (`--agent claude`) whose program writes no transcript: 30 s after its first
 * output, one warning in `show`, `board` and its log, and one page. Needs a
 * build first.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { readJsonl } from '../helpers/cli.js';
import { testScopes, waitUntil, type Hit } from '../helpers/daemon.js';
import { claudeCliPath, skipClaudeTests } from './claude-env.js';
import { bash, claudeHome, jobEnv, project } from './claude-project.js';
import { startFakeAnthropic } from './fake-anthropic.js';

const scope = testScopes();
const START = 60_000;
const SOON = 15_000;

/** A shell script, executable. */
function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const pageOf = (x: Hit) => JSON.parse(x.body) as { kind: string; reason: string; prompt: string; urgent: boolean; name: string };
const webhookConfig = (url: string) => ['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${url}" }`, ''].join('\n');

describe.skipIf(skipClaudeTests())('issue 10.5: a wrapped Claude Code is found in the process tree', () => {
  // Without --agent the tree tells the agent; with it (the issue's case) the tree tells the agent's HOME.
  it.for([
    ['no --agent: detected as claude from the tree', []],
    ['--agent claude: the agent process’s own HOME', ['--agent', 'claude']],
  ] as [string, string[]][])('launch.sh with its own HOME, %s; transcript under the wrapper HOME, a loop blocks on probe:repeated-…', { timeout: 150_000 }, async ([, flags]: [string, string[]], ctx: TestContext) => {
    const server = await startFakeAnthropic(Array.from({ length: 12 }, () => bash('cat does-not-exist.txt')));
    ctx.onTestFinished(() => server.close());
    const s = scope(ctx);
    const h = claudeHome(project({ git: true }), server.url);
    // Not exec: the wrapper stays the job's process and claude runs below it, as such scripts often do.
    const launch = script(s.tempDir('ns-launch-'), 'launch.sh', [
      `export HOME=${sq(h.home)}`,
      `${sq(process.execPath)} ${sq(claudeCliPath())} --permission-mode bypassPermissions "$@"`,
    ].join('\n'));
    const daemonHome = s.tempDir('ns-daemon-home-');
    const hook = await s.server();
    const state = s.stateDir(webhookConfig(hook.url('/hook')));
    const d = await s.daemon(state, [], { ...jobEnv(h), HOME: daemonHome });
    await d.submit('wrapped', [launch, 'please show me does-not-exist.txt'], ['--cwd', h.project, ...flags]);

    const blocked = await d.waitJob('wrapped', (j) => j.state === 'blocked' && j.reason.code.startsWith('probe:'), START, 'blocked on a probe');
    expect(blocked.reason.code).toMatch(/^probe:repeated-(?:action|failure)$/);
    expect(String(blocked.reason.detail)).toContain('does-not-exist.txt');
    const probePage = await waitUntil(() => hook.on('/hook').map(pageOf).find((p) => p.kind === 'probe'), SOON, 'the probe page');
    expect(probePage.prompt).toContain('does-not-exist.txt');

    // The log says how: found in the tree (and that its hooks could not be wired), or the agent's own HOME.
    const log = readJsonl(blocked.paths!.log).map((l) => String(l.msg));
    const said = flags.length
      ? log.find((m) => m.startsWith('the claude process') && m.includes('own HOME'))
      : log.find((m) => m.startsWith('claude found in the process tree') && m.includes('cannot be wired after the start'));
    expect(said).toContain(join(h.home, '.claude', 'projects'));
    expect(existsSync(join(daemonHome, '.claude', 'projects'))).toBe(false);

    expect((await d.ns('cancel', ['wrapped'])).code).toBe(0);
    const done = await d.waitState('wrapped', 'done', 'cancelled', SOON);
    const summary = JSON.parse(readFileSync(done.paths!.summary, 'utf8')) as { agent?: { agent: string; transcript: string | null; steps: number } };
    expect(summary.agent?.agent).toBe('claude');
    expect(readdirSync(h.transcriptDir).map((n) => join(h.transcriptDir, n))).toContain(summary.agent?.transcript);
    expect(summary.agent?.steps).toBeGreaterThanOrEqual(3);
  });
});

describe('issue 10.5: an agent job whose transcript never comes', () => {
  it('--agent claude on a script that only prints and sleeps: one warning in show, board and the log, one page, 30 s after its first output', async (ctx) => {
    const s = scope(ctx);
    const dir = s.tempDir('ns-blind-');
    const fake = script(dir, 'fake-claude.sh', 'echo "pretending to be claude"; exec sleep 300');
    const hook = await s.server();
    const state = s.stateDir(webhookConfig(hook.url('/hook')));
    const d = await s.daemon(state, [], { HOME: s.tempDir('ns-daemon-home-') });
    await d.submit('blind', [fake], ['--agent', 'claude', '--cwd', dir]);
    await d.waitLive('blind', SOON);

    type Warned = { warnings?: { code: string; message: string; time: string }[] };
    const shown = await waitUntil(async () => {
      const x = (await d.show('blind')) as Warned & Awaited<ReturnType<typeof d.show>>;
      return x.warnings?.length ? x : undefined;
    }, 45_000, 'the no-transcript warning in show');
    const w = shown.warnings![0]!;
    expect(w.code).toBe('no-transcript');
    expect(w.message).toMatch(/^no claude transcript under .*\.claude\/projects 3\d s after the job's first output/);
    // Measured from the job's first output, so never before 30 s after its start.
    expect(Date.parse(w.time) - Date.parse(shown.job.started!)).toBeGreaterThanOrEqual(30_000);
    // A warning blocks nothing (under the test daemon's 2 s tool gap the quiet script is `hung` by now, a page of its own).
    expect(shown.job.state).not.toBe('done');

    expect((await d.ns('show', ['blind'])).stdout).toContain(`  warning:  ${w.message} (no-transcript, `);
    expect((await d.ns('board')).stdout).toContain(`warning: blind: ${w.message}`);
    const row = (await d.boardCli()).find((j) => j.name === 'blind') as Warned | undefined;
    expect(row?.warnings).toEqual([w]);
    const logged = readJsonl(shown.job.paths!.log).filter((l) => l.warning === 'no-transcript');
    expect(logged.map((l) => l.msg)).toEqual([w.message]);

    const page = await waitUntil(() => hook.on('/hook').map(pageOf).find((p) => p.reason === 'no-transcript'), SOON, 'the no-transcript page');
    expect(page).toMatchObject({ kind: 'other', name: 'blind', urgent: false, prompt: w.message });
    const again = await d.show('blind');
    expect(again.pages.filter((p) => p.page.reason === 'no-transcript')).toHaveLength(1);
    expect(hook.on('/hook').map(pageOf).filter((p) => p.reason === 'no-transcript')).toHaveLength(1);
  }, 90_000);
});
