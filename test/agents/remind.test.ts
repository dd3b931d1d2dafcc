/**
 * Verify before accepting and the wrap-up reserve, with the REAL Claude Code
 * CLI offline (fake-anthropic.ts plays the model) under the daemon:
 *
 * - a claim of done after a change, with no test run, gets a reminder typed
 *   into Claude naming the project's own check (`npm test`, from its
 *   package.json), twice at most; then the job ends `unverified` (exit 114)
 *   on the board, in `show` and in the digest; an agent that runs the test
 *   after the reminder, and it passes, ends clean (turn-ended, exit 0);
 * - a step budget of 10 with the reserve at 85 %: at the 9th tool call the
 *   wrap-up message reaches the model, its hand-off lands in the resume
 *   card, then the hard stop at the 11th call (budget:steps).
 *
 * Needs a build first; skipped without NIGHTSHIFT_AGENT_CACHE's CLI.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJsonl } from '../helpers/cli.js';
import { testScopes } from '../helpers/daemon.js';
import { until } from '../helpers/until.js';
import { skipClaudeTests } from './claude-env.js';
import { bash, claudeArgv, claudeHome, jobEnv, project } from './claude-project.js';
import { lastUserMessageText, startFakeAnthropic, type FakeAnthropic, type RecordedRequest, type Reply, type ScriptStep } from './fake-anthropic.js';

const scope = testScopes();
const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const FINISH = 90_000;

/** A node project whose `npm test` passes. */
function nodeProject(): string {
  const dir = project({ git: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { test: 'node test.js' } }, null, 2)}\n`);
  writeFileSync(join(dir, 'test.js'), "console.log('1 test passed');\n");
  return dir;
}

async function agentDaemon(ctx: Parameters<typeof scope>[0], dir: string, script: ScriptStep[], replies: Reply[] = []) {
  const server = await startFakeAnthropic(script, replies);
  servers.push(server);
  const h = claudeHome(dir, server.url);
  const s = scope(ctx);
  const d = await s.daemon(s.stateDir(), [], jobEnv(h));
  return { d, h, server };
}

/** The last user message of each main request (typed text and tool results: a message typed mid-tool rides in its result). */
const userTexts = (server: FakeAnthropic): string[] => server.requests.filter((q: RecordedRequest) => q.step !== undefined).map((r) => lastUserMessageText(r.body));

/** The responses to one probe's verdicts, from the job's evidence.jsonl. */
const responses = (dir: string, probe: string) => readJsonl(join(dir, 'evidence.jsonl')).filter((e) => e.type === 'verdict' && e.probe === probe).map((e) => e.response);

describe.skipIf(skipClaudeTests())('verify before accepting, real Claude Code under the daemon', () => {
  it('a claim of done with no test run is reminded twice to run `npm test`, then ends unverified: exit 114 on the board, in show and in the digest', async (ctx) => {
    const { d, h, server } = await agentDaemon(ctx, nodeProject(), [
      bash('echo "return a + b" > sum.js'),
      { text: 'Done: I fixed the sum function.' },
      { text: 'Done: the fix is in place.' },
      { text: 'Done.' },
    ]);
    await d.submit('fix', [...claudeArgv(), 'please fix the sum function'], ['--agent', 'claude', '--cwd', h.project]);
    const job = await d.waitState('fix', 'done', 'unverified', FINISH);
    expect(job.exit).toEqual({ code: 114, signal: null });
    expect(job.reason.exit_code).toBe(114);

    // The reminders reached the model as typed messages, naming the project's own check.
    const reminders = userTexts(server).filter((t) => t.includes('nightshift: you changed files'));
    expect(reminders).toHaveLength(2);
    for (const r of reminders) expect(r).toContain('Run `npm test`');
    expect(reminders[0]).toContain('reminder 1 of 2');
    expect(reminders[1]).toContain('reminder 2 of 2');
    expect(responses(job.paths!.dir, 'unverified-claim')).toEqual(['nudge', 'nudge', 'record']);
    const cli = await d.ns('show', ['fix']);
    expect(cli.stdout).toMatch(/unverified.*code 114/);
    const digest = await d.ns('digest', ['--json']);
    const ended = (JSON.parse(digest.stdout) as { ended_badly: { name: string; why: string; exit_code: number }[] }).ended_badly;
    expect(ended).toEqual([expect.objectContaining({ name: 'fix', exit_code: 114, why: expect.stringMatching(/^unverified/) })]);
    const card = JSON.parse(readFileSync(join(job.paths!.dir, 'resume.json'), 'utf8')) as { stop_reason: string; open: string[] };
    expect(card.stop_reason).toBe('unverified');
    expect(card.open.join('\n')).toContain('without a passing check');
  }, 120_000);

  it('an agent that runs the test after the reminder, and it passes, ends clean: turn-ended, exit 0', async (ctx) => {
    const { d, h, server } = await agentDaemon(ctx, nodeProject(), [
      bash('echo "return a + b" > sum.js'),
      { text: 'Done: I fixed the sum function.' },
      bash('npm test'),
      { text: 'Done: npm test passes.' },
    ]);
    await d.submit('fix', [...claudeArgv(), 'please fix the sum function'], ['--agent', 'claude', '--cwd', h.project]);
    const job = await d.waitState('fix', 'done', 'turn-ended', FINISH);
    expect(job.exit).toEqual({ code: 0, signal: null });
    expect(userTexts(server).filter((t) => t.includes('nightshift: you changed files'))).toHaveLength(1);
    expect(responses(job.paths!.dir, 'unverified-claim')).toEqual(['nudge']);
  }, 120_000);
});

describe.skipIf(skipClaudeTests())('the wrap-up reserve, real Claude Code under the daemon', () => {
  it('a step budget of 10 with the reserve at 85%: the wrap-up reaches the model after the 9th call, the hand-off lands in the resume card, then budget:steps at the 11th', async (ctx) => {
    const handOff = 'HAND-OFF: verified: step 1 to 8 ran; not verified: the last echo; next: run step 10; work: notes.txt';
    // The 9th call takes a moment, as real work does: the message is typed while it runs.
    const script = [...Array.from({ length: 8 }, (_, i) => bash(`echo step-${i + 1}`)), bash('sleep 4'), bash('echo step-10'), bash('echo step-11'), bash('echo step-12')];
    const replies: Reply[] = [{ when: /write your hand-off/, queued: true, step: { tool: 'Bash', command: 'echo after-hand-off', say: handOff } }];
    const { d, h, server } = await agentDaemon(ctx, project({ git: true }), script, replies);
    await d.submit('long', [...claudeArgv(), 'please run the steps'], ['--agent', 'claude', '--cwd', h.project, '--max-steps', '10', '--wrap-up', '85%']);
    const job = await d.waitState('long', 'done', 'budget:steps', FINISH);
    expect(job.exit?.code).toBe(123);
    const asked = userTexts(server).filter((t) => t.includes('write your hand-off'));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('9 tool calls of its step budget of 10 tool calls');
    expect(responses(job.paths!.dir, 'wrap-up')).toEqual(['nudge']);
    const card = await until(() => {
      try {
        return JSON.parse(readFileSync(join(job.paths!.dir, 'resume.json'), 'utf8')) as { agent_handoff: string | null; stop_reason: string };
      } catch {
        return undefined;
      }
    }, 10_000, 'the resume card');
    expect(card.stop_reason).toBe('budget:steps');
    expect(card.agent_handoff).toContain(handOff);
    expect(readFileSync(join(job.paths!.dir, 'resume.md'), 'utf8')).toContain(`## The agent's hand-off\n${handOff}`);
  }, 120_000);
});
