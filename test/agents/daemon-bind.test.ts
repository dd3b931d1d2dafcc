/**
 * Issue 10, "done when", with the REAL Claude Code CLI offline under the
 * daemon: a loop of identical failing calls is escalated within 8 calls, the
 * job is blocked on the probe on the board and in its page, Claude is
 * interrupted (at most 2 more calls reach the fake model), `nightshift send`
 * makes it go on, and the job later ends done/turn-ended. Needs a build first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readJsonl } from '../helpers/cli.js';
import { sr, testScopes, waitUntil, type Hit } from '../helpers/daemon.js';
import { skipClaudeTests } from './claude-env.js';
import { bash, claudeArgv, claudeHome, jobEnv, project } from './claude-project.js';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';
import { codexCliPath, prepareCodexHome, skipCodexTests } from './codex-env.js';
import { functionOutputs, startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';

const scope = testScopes();
const servers: Array<FakeAnthropic | FakeOpenAI> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const START = 45_000;
const SOON = 15_000;
const mainCalls = (s: FakeAnthropic) => s.requests.filter((r) => r.step !== undefined).length;

describe.skipIf(skipClaudeTests())('issue 10: an escalation binds, real Claude Code under the daemon', () => {
  it('a loop is blocked on probe:… (board, show, page with send/continue/cancel), Claude interrupted; send makes it go on to done/turn-ended', async (ctx) => {
    const server = await startFakeAnthropic(
      Array.from({ length: 12 }, () => bash('cat does-not-exist.txt')),
      [{ when: /^Stop trying/, step: { text: 'The file does not exist; I stopped.' } }],
    );
    servers.push(server);
    const h = claudeHome(project({ git: true }), server.url);
    const s = scope(ctx);
    const hook = await s.server();
    const state = s.stateDir(['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${hook.url('/hook')}" }`, ''].join('\n'));
    const d = await s.daemon(state, [], jobEnv(h));
    await d.submit('loop', [...claudeArgv(), 'please show me does-not-exist.txt'], ['--agent', 'claude', '--cwd', h.project]);

    const blocked = await d.waitJob('loop', (j) => j.state === 'blocked' && j.reason.code.startsWith('probe:'), START, 'blocked on a probe');
    const atBlock = mainCalls(server);
    expect(atBlock).toBeLessThanOrEqual(8);
    expect(blocked.reason.code).toMatch(/^probe:repeated-(?:action|failure)$/);
    expect(String(blocked.reason.detail)).toContain('does-not-exist.txt');

    // The page: the verdict, and commands that work as they are (this state dir is not the default).
    const isProbePage = (x: Hit) => (JSON.parse(x.body) as { kind: string }).kind === 'probe';
    const hit = await waitUntil(() => hook.on('/hook').find(isProbePage), SOON, 'the probe page');
    const page = JSON.parse(hit.body) as { reason: string; prompt: string; commands: string[]; urgent: boolean };
    expect(page).toMatchObject({ reason: blocked.reason.code, urgent: true });
    expect(page.prompt).toContain('does-not-exist.txt');
    expect(page.commands).toEqual([
      `nightshift send --state ${state} loop '<what to do instead>'`,
      `nightshift continue --state ${state} loop`,
      `nightshift cancel --state ${state} loop`,
    ]);

    // Claude's turn was interrupted: no call comes any more, at most 2 reached the model after the block.
    let last = mainCalls(server);
    let since = Date.now();
    await waitUntil(() => {
      if (mainCalls(server) !== last) [last, since] = [mainCalls(server), Date.now()];
      return Date.now() - since >= 3_000 ? true : undefined;
    }, SOON, 'the calls to stop');
    expect(mainCalls(server) - atBlock).toBeLessThanOrEqual(2);
    const shown = await d.show('loop');
    expect(sr(shown.job)).toBe(`blocked/${blocked.reason.code}`);
    const text = await d.ns('show', ['loop']);
    expect(text.stdout).toMatch(/verdict repeated-(?:action|failure) \((?:warn|critical)\) → escalate: /);

    // A person tells it what to do: the block ends (continued), Claude answers, the turn ends: done.
    const sent = await d.ns('send', ['loop', 'Stop trying and tell me what happened.'], { NIGHTSHIFT_USER: 'ann' });
    expect(sent.code).toBe(0);
    const done = await d.waitState('loop', 'done', 'turn-ended', START);
    expect(done.exit).toEqual({ code: 0, signal: null });
    const evidence = readJsonl(done.paths!.evidence);
    expect(evidence.filter((e) => e.type === 'person')).toMatchObject([{ action: 'send', by: 'human:ann' }]);
    // The blocked episode's outcome: a person continued it.
    expect(evidence.filter((e) => e.type === 'outcome').map((e) => e.followed)).toContain('continued');
    expect(done.reason.code).toBe('turn-ended');
  }, 150_000);
});

describe.skipIf(skipCodexTests())('issue 10: an escalation binds, real Codex CLI under the daemon', () => {
  it('an error loop over changing file names is blocked on probe:… within 8 calls, Codex interrupted; send makes it go on to done/turn-ended', async (ctx) => {
    const server = await startFakeOpenAI(
      Array.from({ length: 12 }, (_, i) => ({ tool: 'exec_command', args: { cmd: `cat does-not-exist-${i + 3}.txt` } })),
      [{ when: /^Stop trying/, step: { text: 'None of the files exist; I stopped.' } }],
    );
    servers.push(server);
    const s = scope(ctx);
    const h = prepareCodexHome(project(), server.url, { home: s.tempDir('ns-bind-codex-home-') });
    // As in probes.test.ts: npm's variables and the ones the Codex home removes must not reach the job.
    const scrub = Object.fromEntries([...Object.keys(process.env).filter((k) => /^npm_/i.test(k)), ...h.removed].map((k) => [k, undefined]));
    const d = await s.daemon(s.stateDir(), [], { ...h.env, ...scrub });
    await d.submit('codex-loop', [process.execPath, codexCliPath(), '--no-daemon', 'please show me the data files'], ['--agent', 'codex', '--cwd', h.project]);

    const blocked = await d.waitJob('codex-loop', (j) => j.state === 'blocked' && j.reason.code.startsWith('probe:'), START, 'blocked on a probe');
    const atBlock = functionOutputs(server.requests).length;
    expect(atBlock).toBeLessThanOrEqual(8);
    expect(blocked.reason.code).toMatch(/^probe:(?:repeated-failure|no-progress)$/);
    let last = atBlock;
    let since = Date.now();
    await waitUntil(() => {
      const n = functionOutputs(server.requests).length;
      if (n !== last) [last, since] = [n, Date.now()];
      return Date.now() - since >= 3_000 ? true : undefined;
    }, SOON, 'the calls to stop');
    expect(functionOutputs(server.requests).length - atBlock).toBeLessThanOrEqual(2);

    expect((await d.ns('send', ['codex-loop', 'Stop trying and tell me what happened.'], { NIGHTSHIFT_USER: 'ann' })).code).toBe(0);
    const done = await d.waitState('codex-loop', 'done', 'turn-ended', START);
    expect(done.exit).toEqual({ code: 0, signal: null });
  }, 150_000);
});
