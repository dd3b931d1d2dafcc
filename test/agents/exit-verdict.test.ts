/**
 * Exit status tells the truth and a verdict outlives the process, with the
 * REAL Claude Code CLI offline (fake-anthropic.ts): a job blocked on a
 * refused claim (probe:fake-completion) that nightshift then stops ends with
 * its stop's status (`run --timeout` 124; a daemon's budget 123), though
 * Claude exits cleanly; a one-shot `claude -p` whose claim is refused and
 * which then exits 0 by itself ends done/escalated (120), with a resume
 * card, and `--after` it is dependency-failed. Board, `show`, summary.json
 * and `run`'s exit agree. Needs a build first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startCli, tempDir } from '../helpers/cli.js';
import { testScopes } from '../helpers/daemon.js';
import { isState } from './agent-run.js';
import { skipClaudeTests } from './claude-env.js';
import { claudeArgv, claudeHome, jobEnv, project } from './claude-project.js';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';

const scope = testScopes();
const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const START = 30_000;
const FINISH = 60_000;
const CLAIM = 'I created the file notes.md.';
const TASK = 'please create notes.md with a summary of the README';

async function claimingHome() {
  const server = await startFakeAnthropic([{ text: CLAIM }]);
  servers.push(server);
  return claudeHome(project({ git: true }), server.url);
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;

describe.skipIf(skipClaudeTests())('only success exits 0, and a verdict outlives the process: real Claude Code', () => {
  it('blocked on probe:fake-completion, then --timeout: run exits 124 (not 0); its last state, summary.json and the resume card say timeout', async () => {
    const h = await claimingHome();
    const state = tempDir();
    const p = startCli(
      [
        'run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30',
        '--timeout', '20s', '--agent', 'claude', '--name', 'claim', '--cwd', h.project, '--', ...claudeArgv(), TASK,
      ],
      { cwd: h.project, env: jobEnv(h) },
    );
    p.child.stdin!.end();
    await p.waitForJson(isState('blocked', 'probe:fake-completion'), START, 'blocked on the refused claim');
    const exit = await p.waitExit(FINISH);
    expect(exit.code).toBe(124);
    const last = p.jsonLines().filter((o) => o.type === 'state').at(-1)!;
    expect(last).toMatchObject({ state: 'done', reason: 'timeout', exit_code: 124 });
    const dir = String(p.jsonLines()[0]!.dir);
    expect(json(join(dir, 'summary.json'))).toMatchObject({ state: 'done', reason: 'timeout', exit: { code: 124 } });
    expect(json(join(dir, 'resume.json'))).toMatchObject({ stop_reason: 'timeout', stopped_by: { probe: 'fake-completion' } });
  }, 90_000);

  it('blocked on probe:fake-completion under the daemon, then its wall budget: done/budget:wall, exit 123 on the board, in show and summary.json', async (ctx) => {
    const h = await claimingHome();
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), [], jobEnv(h));
    await d.submit('claim', [...claudeArgv(), TASK], ['--agent', 'claude', '--cwd', h.project, '--max-wall', '20s']);
    await d.waitState('claim', 'blocked', 'probe:fake-completion', START);
    const done = await d.waitState('claim', 'done', 'budget:wall', FINISH);
    expect(done.exit?.code).toBe(123);
    expect(done.reason.exit_code).toBe(123);
    expect(json(done.paths!.summary)).toMatchObject({ state: 'done', reason: 'budget:wall', exit: { code: 123 } });
    expect((await d.showCli('claim')).job.exit?.code).toBe(123);
    expect((await d.ns('show', ['claim'])).stdout).toMatch(/exit 123/);
  }, 90_000);

  it('claude -p: the claim is refused, Claude exits 0 by itself: done/escalated (120, not done/exit 0), a resume card with the refused claim, --after it dependency-failed', async (ctx) => {
    const h = await claimingHome();
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), [], jobEnv(h));
    await d.submit('oneshot', [...claudeArgv(), '-p', TASK], ['--agent', 'claude', '--cwd', h.project]);
    await d.submit('after-oneshot', ['echo', 'never'], ['--after', 'oneshot', '--cwd', h.project]);
    const done = await d.waitJob('oneshot', (j) => j.state === 'done', FINISH, 'done');
    expect(`${done.state}/${done.reason.code}`).toBe('done/escalated');
    expect(done.reason.detail).toMatch(/exited on its own while blocked on probe:fake-completion/);
    expect(done.exit).toEqual({ code: 120, signal: null });
    expect(json(done.paths!.summary)).toMatchObject({ state: 'done', reason: 'escalated', exit: { code: 120 } });
    expect((await d.ns('show', ['oneshot'])).stdout).toMatch(/escalated.*code 120/);
    const card = join(done.paths!.dir, 'resume.json');
    expect(existsSync(card)).toBe(true);
    expect(json(card)).toMatchObject({ stop_reason: 'escalated', stopped_by: { probe: 'fake-completion' }, refused_claim: { answer: CLAIM } });
    await d.waitState('after-oneshot', 'done', 'dependency-failed', 20_000);
  }, 90_000);
});
