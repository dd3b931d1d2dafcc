/**
 * Issue 8.3, one meaning of success, with the REAL Claude Code CLI offline
 * (fake-anthropic.ts) under the daemon: an agent job that ends `turn-ended`
 * is a success (`--after` it runs), one that ends `escalated` (a refused
 * claim of completion) is not, and the board, `show`, summary.json and the
 * exit status all say the same. Needs a build first.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sr, testScopes } from '../helpers/daemon.js';
import { skipClaudeTests } from './claude-env.js';
import { bash, claudeArgv, claudeHome, jobEnv, project } from './claude-project.js';
import { startFakeAnthropic, type FakeAnthropic, type ScriptStep } from './fake-anthropic.js';

const scope = testScopes();
const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const FINISH = 60_000;

async function agentDaemon(ctx: Parameters<typeof scope>[0], script: ScriptStep[]) {
  const server = await startFakeAnthropic(script);
  servers.push(server);
  const h = claudeHome(project({ git: true }), server.url);
  const s = scope(ctx);
  const d = await s.daemon(s.stateDir(), [], jobEnv(h));
  return { d, h };
}

const summaryOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { state: string; reason: string; exit: { code: number; signal: string | null } };

describe.skipIf(skipClaudeTests())('issue 8.3: one meaning of success, real Claude Code under the daemon', () => {
  it('a job that ends turn-ended succeeded: --after it runs; board, show and summary say exit 0', async (ctx) => {
    const { d, h } = await agentDaemon(ctx, [bash('touch done.txt'), { text: 'Done: created done.txt' }]);
    await d.submit('agent', [...claudeArgv(), 'please create done.txt'], ['--agent', 'claude', '--cwd', h.project]);
    await d.submit('next', ['echo', 'next-ran'], ['--after', 'agent', '--cwd', h.project]);
    const agent = await d.waitState('agent', 'done', 'turn-ended', FINISH);
    expect(agent.exit).toEqual({ code: 0, signal: null });
    expect(agent.reason.exit_code).toBe(0);
    expect(summaryOf(agent.paths!.summary)).toMatchObject({ state: 'done', reason: 'turn-ended', exit: { code: 0 } });
    const next = await d.waitState('next', 'done', 'exit', 20_000);
    expect(sr(next)).toBe('done/exit');
    expect((await d.show('next')).screen).toContain('next-ran');
  }, 90_000);

  it('a refused claim blocks the job (probe:fake-completion); continued as it was, it ends escalated and failed: exit status 120 (src/core/outcome.ts) everywhere, and --after it is dependency-failed', async (ctx) => {
    const { d, h } = await agentDaemon(ctx, [{ text: 'I created the file notes.md.' }]);
    await d.submit('claim', [...claudeArgv(), 'please create notes.md with a summary of the README'], ['--agent', 'claude', '--cwd', h.project]);
    await d.submit('after-claim', ['echo', 'never'], ['--after', 'claim', '--cwd', h.project]);
    // Issue 10.1: the refused claim binds; the --after job waits on it meanwhile.
    await d.waitState('claim', 'blocked', 'probe:fake-completion', FINISH);
    expect(sr((await d.jobs()).find((j) => j.name === 'after-claim')!)).toBe('queued/submitted');
    const cont = await d.ns('continue', ['claim'], { NIGHTSHIFT_USER: 'bob' });
    expect(cont.stdout).toContain('continued claim (was blocked: probe:fake-completion) as human:bob');
    const claim = await d.waitState('claim', 'done', 'escalated', FINISH);
    // The same exit status as `nightshift run` exits with for this job (escalated: 120), not the CLI's own code after Ctrl-C.
    expect(claim.exit).toEqual({ code: 120, signal: null });
    expect(claim.reason.exit_code).toBe(120);
    expect(summaryOf(claim.paths!.summary)).toMatchObject({ state: 'done', reason: 'escalated', exit: { code: 120 } });
    const shown = await d.ns('show', ['claim']);
    expect(shown.stdout).toMatch(/escalated.*code 120/);
    expect(shown.stdout).not.toMatch(/code 0/);
    await d.waitState('after-claim', 'done', 'dependency-failed', 20_000);
  }, 90_000);
});
