/**
 * The agent's version against the rules' `checked:` versions, under
 * `nightshift run`: the real Claude Code 2.1.112 is covered (no warning); a
 * fake `claude` that says it is 2.9.0 gets one warning on stderr and in the
 * job's log. Needs a build first (npx tsc -p tsconfig.json).
 */
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, readJsonl, startCli, tempDir, type CliProcess } from '../helpers/cli.js';
import { fakeAgent, fakeClaude } from '../helpers/fake-agent.js';
import { skipClaudeTests } from '../agents/claude-env.js';
import { claudeArgv, claudeHome, jobEnv, project } from '../agents/claude-project.js';
import { startFakeAnthropic, type FakeAnthropic } from '../agents/fake-anthropic.js';

const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const WARNING = /rules not checked against claude-code/;

function logOf(p: CliProcess): Record<string, unknown>[] {
  const job = p.jsonLines().find((o) => o.type === 'job');
  return readJsonl(join(String(job!.dir), 'log.jsonl'));
}

describe('nightshift run: rules coverage of the agent version', () => {
  it('an agent newer than every checked version: one warning line on stderr and in the log; the job runs on', async () => {
    const bin = fakeClaude();
    const state = tempDir();
    const p = startCli(['run', '--agent', 'claude', '--json', '--quiet', '--state', state, '--timeout', '20s', '--', 'claude', 'task'], {
      env: { PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
    const line = await p.waitForLine((l) => WARNING.test(l), 10_000, 'coverage warning');
    expect(JSON.parse(line)).toMatchObject({
      type: 'warning',
      message: 'rules not checked against claude-code 2.9.0 (newest checked: 2.1.332); dialogs no rule names will be escalated',
      rules_coverage: { agent: 'claude-code', version: '2.9.0', checked: ['2.1.112', '2.1.332'], covered: false },
    });
    p.write('go\n');
    const exit = await p.waitExit(15_000);
    expect(exit.code).toBe(0);
    expect(p.stderrLines.filter((l) => WARNING.test(l))).toHaveLength(1);
    const logged = logOf(p).filter((r) => WARNING.test(String(r.msg)));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ rules_coverage: { version: '2.9.0', covered: false } });
  }, 30_000);

  it('an agent with rules but no transcript adapter (GitHub Copilot CLI): its version is held against its rules too', async () => {
    const bin = fakeAgent('copilot', '1.0.200');
    const p = startCli(['run', '--json', '--quiet', '--state', tempDir(), '--timeout', '20s', '--', 'copilot', 'task'], {
      env: { PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
    const line = await p.waitForLine((l) => /rules not checked against copilot/.test(l), 10_000, 'coverage warning');
    expect(JSON.parse(line)).toMatchObject({
      type: 'warning',
      message: 'rules not checked against copilot 1.0.200 (newest checked: 1.0.102); dialogs no rule names will be escalated',
      rules_coverage: { agent: 'copilot', version: '1.0.200', checked: ['1.0.102'], covered: false },
    });
    p.write('go\n');
    expect((await p.waitExit(15_000)).code).toBe(0);
  }, 30_000);

  it.skipIf(skipClaudeTests())('the real Claude Code 2.1.112 is covered: no warning, the log says which versions the rules were checked against', async () => {
    const server = await startFakeAnthropic([{ text: 'Hello.' }]);
    servers.push(server);
    const h = claudeHome(project(), server.url);
    const p = startCli(
      ['run', '--json', '--quiet', '--state', tempDir(), '--settle', '1s', '--timeout', '60s', '--cwd', h.project, '--', ...claudeArgv(), 'say hello'],
      { cwd: h.project, env: jobEnv(h) },
    );
    p.child.stdin!.end();
    await p.waitExit(75_000);
    expect(p.stderr).not.toMatch(/rules not checked/);
    const logged = logOf(p).filter((r) => r.rules_coverage !== undefined);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      msg: 'rules checked against claude-code 2.1.112, 2.1.332',
      rules_coverage: { agent: 'claude-code', version: '2.1.112', covered: true },
    });
  }, 90_000);
});
