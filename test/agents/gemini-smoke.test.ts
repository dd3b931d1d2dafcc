/**
 * The real Gemini CLI (0.61.0, installed by scripts/agents/install-gemini.sh)
 * offline against fake-gemini.ts, under `nightshift run`: its shell approval
 * and its folder-trust dialog block the job as prompts (gemini-approval,
 * gemini-trust; class permission), are escalated and never answered by
 * nightshift; the "person" answers.
 *
 * Skipped on a machine without the CLI; fails in CI (CI set) without it.
 * Needs a build first (npx tsc -p tsconfig.json): bin/nightshift.js runs dist/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startCli, tempDir, type CliProcess } from '../helpers/cli.js';
import { until } from '../helpers/until.js';
import { isState, quitWithCtrlC } from './agent-run.js';
import { functionResponses, isStreamRequest, startFakeGemini, type FakeGemini, type GeminiStep } from './fake-gemini.js';
import { GEMINI_VERSION, geminiChats, geminiCommand, prepareGeminiHome, skipGeminiTests, type GeminiHome } from './gemini-env.js';

/** Start-up of the bundle is 2–4 s here; slower on a loaded 2-core machine. */
const START = 40_000;
const SOON = 15_000;

const servers: FakeGemini[] = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(script: GeminiStep[], o: { trust?: boolean } = {}): Promise<{ server: FakeGemini; h: GeminiHome }> {
  const server = await startFakeGemini(script);
  servers.push(server);
  return { server, h: prepareGeminiHome(tempDir('ns-gemini-proj-'), server.url, { home: tempDir('ns-gemini-home-'), ...o }) };
}

function runGemini(h: GeminiHome, prompt?: string): CliProcess {
  const env = { ...h.env, ...Object.fromEntries(h.removed.map((k) => [k, undefined])) };
  return startCli(
    [
      'run', '--json', '--quiet', '--state', tempDir(), '--settle', '1s', '--cols', '120', '--rows', '40',
      '--name', 'gemini', '--cwd', h.project, '--timeout', '90s', '--', ...geminiCommand(), ...(prompt ? ['--prompt-interactive', prompt] : []),
    ],
    { cwd: h.project, env },
  );
}


const quit = (p: CliProcess) => quitWithCtrlC(p, SOON);

/** The blocked prompt is escalated and nothing is answered by nightshift. */
async function expectEscalated(p: CliProcess, rule: string): Promise<void> {
  const blocked = await p.waitForJson(isState('blocked'), START, 'blocked state');
  expect(blocked).toMatchObject({ reason: 'prompt', rule, class: 'permission' });
  const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalate action');
  expect(action).toMatchObject({ kind: 'escalate', rule, class: 'permission', reason: 'prompt' });
}

describe.skipIf(skipGeminiTests())(`real Gemini CLI ${GEMINI_VERSION} offline, under nightshift run`, () => {
  it('touch made.txt: "Allow execution of [Shell]?" blocks the job (gemini-approval), escalated; "1" (allow once) from the person runs it', async () => {
    const { server, h } = await setup([{ shell: 'touch made.txt', description: 'Create made.txt' }, { text: 'Created made.txt.' }]);
    const p = runGemini(h, 'please run touch made.txt');

    await expectEscalated(p, 'gemini-approval');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(existsSync(join(h.project, 'made.txt'))).toBe(false);
    expect(p.jsonLines().filter((o) => o.type === 'action').map((o) => o.kind)).toEqual(['escalate']);

    p.write('1');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    await until(() => existsSync(join(h.project, 'made.txt')), SOON, 'made.txt');
    const [response] = await until(() => (functionResponses(server.requests).length > 0 ? functionResponses(server.requests) : undefined), SOON, 'a functionResponse');
    expect(response).toMatchObject({ name: 'run_shell_command' });
    // What the real CLI sent: the router (JSON with complexity_score) before each streamed turn.
    const paths = server.requests.filter((r) => r.method === 'POST').map((r) => r.path.replace(/models\/[^:]+/, 'models/M'));
    expect(paths.slice(0, 2)).toEqual(['/v1beta/models/M:generateContent', '/v1beta/models/M:streamGenerateContent?alt=sse']);
    expect(server.requests.filter(isStreamRequest).length).toBeGreaterThanOrEqual(2);
    await until(() => geminiChats(h).some((f) => readFileSync(f, 'utf8').includes('run_shell_command')), SOON, 'the call in the chat transcript');

    await quit(p);
    expect(p.jsonLines().filter((o) => o.type === 'action' && o.kind === 'answer')).toEqual([]);
  }, 90_000);

  it('an untrusted folder: "Do you trust the files in this folder?" blocks the job (gemini-trust), escalated; "3" (don\'t trust) goes on untrusted', async () => {
    const { h } = await setup([{ text: 'Hello.' }], { trust: false });
    const p = runGemini(h);

    await expectEscalated(p, 'gemini-trust');
    p.write('3');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    const trusted = join(h.home, '.gemini', 'trustedFolders.json');
    await until(() => JSON.parse(readFileSync(trusted, 'utf8'))[h.project] === 'DO_NOT_TRUST', SOON, 'DO_NOT_TRUST recorded');
    await quit(p);
    expect(p.jsonLines().filter((o) => o.type === 'action' && o.kind === 'answer')).toEqual([]);
  }, 90_000);
});
