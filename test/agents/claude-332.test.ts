/**
 * The real Claude Code 2.1.332 (the native binary, installed by
 * scripts/agents/install-claude.sh 2.1.332) offline against fake-anthropic.ts,
 * under `nightshift run`: its permission dialog blocks the job as a prompt
 * (claude-code-permission, class permission), is escalated and never
 * answered; Escape from the "person" declines and nothing ran.
 *
 * Skipped on a machine without the binary; fails in CI (CI set) without it.
 * Needs a build first (npx tsc -p tsconfig.json): bin/nightshift.js runs dist/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startCli, tempDir, type CliProcess } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { isState, quitWithCtrlC } from './agent-run.js';
import { CLAUDE_NATIVE_VERSION, claudeNativeCommand, prepareClaudeHome, skipClaudeNativeTests } from './claude-env.js';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';

const START = 30_000;
const SOON = 15_000;

const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});


const quit = (p: CliProcess) => quitWithCtrlC(p, SOON);

describe.skipIf(skipClaudeNativeTests())(`real Claude Code ${CLAUDE_NATIVE_VERSION} offline, under nightshift run`, () => {
  it('touch made.txt: the 4-option dialog blocks the job (claude-code-permission, permission), escalated, never answered; Escape declines', async () => {
    const server = await startFakeAnthropic([{ tool: 'Bash', command: 'touch made.txt', description: 'Create made.txt' }, { text: 'Created.' }]);
    servers.push(server);
    const h = prepareClaudeHome(tempDir('ns-claude-proj-'), server.url, { home: tempDir('ns-claude-home-') });
    const env = { ...h.env, ...Object.fromEntries(h.removed.map((k) => [k, undefined])) };
    const p = startCli(
      [
        'run', '--json', '--quiet', '--state', tempDir(), '--settle', '1s', '--cols', '100', '--rows', '30',
        '--name', 'claude', '--cwd', h.project, '--timeout', '90s', '--', ...claudeNativeCommand(), 'please run touch made.txt',
      ],
      { cwd: h.project, env },
    );

    const blocked = await p.waitForJson(isState('blocked'), START, 'blocked state');
    expect(blocked).toMatchObject({ reason: 'prompt', rule: 'claude-code-permission', class: 'permission' });
    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalate action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'claude-code-permission', class: 'permission', reason: 'prompt' });
    // Held, not answered: still blocked a moment later, nothing ran.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(existsSync(join(h.project, 'made.txt'))).toBe(false);
    expect(p.jsonLines().filter((o) => o.type === 'action').map((o) => o.kind)).toEqual(['escalate']);

    p.write('\x1b');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    await quit(p);
    expect(existsSync(join(h.project, 'made.txt'))).toBe(false);
    const lines = p.jsonLines();
    expect(lines.filter((o) => o.type === 'action' && o.kind === 'answer')).toEqual([]);
    // 2.1.332 is a checked version: no "rules not checked against" warning.
    expect(lines.filter((o) => o.type === 'warning' && /rules not checked/.test(String(o.message ?? '')))).toEqual([]);
    expect(server.turns).toBe(1);
  }, 60_000);

  it('a loop of identical failing calls binds on 2.1.332 too: blocked on probe:repeated-…, interrupted with Esc, at most 2 more calls reach the model (issue 10.1)', async () => {
    const server = await startFakeAnthropic(Array.from({ length: 10 }, () => ({ tool: 'Bash' as const, command: 'cat missing.txt' })));
    servers.push(server);
    const h = prepareClaudeHome(tempDir('ns-claude-proj-'), server.url, { home: tempDir('ns-claude-home-') });
    const env = { ...h.env, ...Object.fromEntries(h.removed.map((k) => [k, undefined])) };
    const p = startCli(
      [
        'run', '--json', '--quiet', '--state', tempDir(), '--settle', '1s', '--cols', '100', '--rows', '30', '--agent', 'claude',
        '--name', 'claude', '--cwd', h.project, '--timeout', '90s', '--', ...claudeNativeCommand(), 'please show me missing.txt',
      ],
      { cwd: h.project, env },
    );
    const calls = () => server.requests.filter((r) => r.step !== undefined).length;
    const blocked = await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && /^probe:repeated-/.test(String(o.reason)), START, 'blocked on the loop');
    const atBlock = calls();
    let last = calls();
    let since = Date.now();
    await until(() => {
      if (calls() !== last) [last, since] = [calls(), Date.now()];
      return Date.now() - since >= 3_000 ? true : undefined;
    }, SOON, 'the calls to stop');
    expect(calls() - atBlock).toBeLessThanOrEqual(2);
    expect(calls()).toBeLessThan(11);
    expect(p.jsonLines().filter((o) => o.type === 'state').at(-1)).toMatchObject({ state: 'blocked', reason: blocked.reason });
    p.child.kill('SIGTERM');
    await p.waitExit(30_000);
  }, 90_000);
});
