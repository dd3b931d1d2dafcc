/**
 * Agent signals live: the real Claude Code 2.1.112 and Codex
 * 0.171.0 CLIs offline (fake model servers) under `nightshift run`, with
 * their per-job hooks / notify program. Rules that name none of their
 * screens, so only the agent's own word can block the job.
 *
 * Needs a build first (npx tsc -p tsconfig.json). Polling with deadlines, no fixed sleeps.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readCast } from '../../src/record/cast-reader.js';
import { cleanup, readJsonl, runCli, startCli, tempDir, type CliProcess, type JsonLine } from '../helpers/cli.js';
import { isState, quitWithCtrlC } from './agent-run.js';
import { RULES_DIR } from '../helpers/rules.js';
import { until } from '../helpers/until.js';
import { claudeCommand, prepareClaudeHome, skipClaudeTests } from './claude-env.js';
import { codexCliPath, prepareCodexHome, skipCodexTests } from './codex-env.js';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';

const START = 30_000;
const SOON = 15_000;
const TEST_TIMEOUT = 90_000;

const servers: Array<FakeAnthropic | FakeOpenAI> = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The shipped rules minus every prompt rule: no rule names an agent's dialog (and no probes: signals need none). */
function rulesNamingNothing(): string {
  const dir = tempDir('ns-signal-rules-');
  const prompts = parse(readFileSync(join(RULES_DIR, 'prompts.yaml'), 'utf8')) as { prompts: Array<{ id: string }> };
  prompts.prompts = prompts.prompts.filter((r) => r.id === 'apt-remove');
  writeFileSync(join(dir, 'prompts.yaml'), stringify(prompts));
  for (const f of ['risk.yaml', 'policy.yaml']) copyFileSync(join(RULES_DIR, f), join(dir, f));
  return dir;
}

const scrubbed = (env: Record<string, string>, removed: string[]) => ({
  ...env,
  ...Object.fromEntries(Object.keys(process.env).filter((k) => /^npm_/i.test(k)).map((k) => [k, undefined])),
  ...Object.fromEntries(removed.map((k) => [k, undefined])),
});


function jobDir(p: CliProcess): string {
  const job = p.jsonLines().find((o) => o.type === 'job');
  expect(job).toBeDefined();
  return String(job!.dir);
}

const quit = (p: CliProcess) => quitWithCtrlC(p, SOON);

describe.skipIf(skipClaudeTests())('Claude Code 2.1.112 hooks, live', () => {
  it('a permission dialog no rule names blocks as agent-waiting on the hook, is never answered, and the drill of its recording blocks alike', async () => {
    const server = await startFakeAnthropic([{ tool: 'Bash', command: 'touch made.txt' }, { text: 'I created made.txt.' }]);
    servers.push(server);
    const h = prepareClaudeHome(tempDir('ns-signal-proj-'), server.url, { home: tempDir('ns-signal-home-') });
    mkdirSync(join(h.home, '.claude'), { recursive: true });
    const userSettings = `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }, null, 2)}\n`;
    writeFileSync(join(h.home, '.claude', 'settings.json'), userSettings);
    const rules = rulesNamingNothing();
    const state = tempDir();
    const p = startCli(
      [
        'run', '--json', '--quiet', '--state', state, '--rules', rules, '--settle', '3s', '--cols', '100', '--rows', '30',
        '--name', 'claude', '--cwd', h.project, '--timeout', '90s', '--', ...claudeCommand(), 'please run touch made.txt',
      ],
      { cwd: h.project, env: scrubbed(h.env, h.removed) },
    );

    const blocked = await p.waitForJson(isState('blocked'), START, 'blocked state');
    expect(blocked).toMatchObject({ reason: 'agent-waiting', class: 'unknown', detail: 'claude-hook:PermissionRequest' });
    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalation');
    expect(action).toMatchObject({ kind: 'escalate', reason: 'agent-waiting' });
    const dir = jobDir(p);
    // The hook fires as the dialog is drawn; Notification permission_prompt follows ~6 s later and keeps the block.
    await until(() => readFileSync(join(dir, 'agent-signals.jsonl'), 'utf8').includes('"notification_type":"permission_prompt"'), SOON, 'the Notification hook');
    expect(p.jsonLines().filter((o) => o.type === 'action').map((o) => o.kind)).toEqual(['escalate']);
    expect(existsSync(join(h.project, 'made.txt'))).toBe(false);

    // Time from the dialog on screen to blocked: the recording's clock and the summary's start.
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const cast = await readCast(join(dir, 'recording.cast'));
    const dialogAt = Date.parse(summary.started) + 1000 * cast.events.find((e) => e.code === 'o' && /proceed\?/.test(e.data))!.t;
    const blockedIn = Date.parse(String(blocked.time)) - dialogAt;
    console.log(`dialog → blocked/agent-waiting: ${blockedIn} ms`);
    expect(blockedIn).toBeLessThan(3_000);
    const markers = cast.events.filter((e) => e.code === 'm' && e.data.startsWith('agent-state:')).map((e) => e.data);
    expect(markers).toContain('agent-state:working:said:claude-hook:PreToolUse');
    expect(markers).toContain('agent-state:waiting:said:claude-hook:PermissionRequest');

    // Our hooks came from the job's own settings; the user's file is as it was.
    expect(JSON.parse(readFileSync(join(dir, 'agent-settings.json'), 'utf8')).hooks.PermissionRequest).toHaveLength(1);
    expect(readFileSync(join(h.home, '.claude', 'settings.json'), 'utf8')).toBe(userSettings);
    const started = readJsonl(join(dir, 'log.jsonl')).find((r) => r.msg === 'job started');
    expect(started?.launched_args).toContain('--settings');

    await quit(p);
    expect(existsSync(join(h.project, 'made.txt'))).toBe(false);
    const drill = await runCli(['drill', '--json', '--rules', rules, '--settle', '3s', join(dir, 'recording.cast')], { ms: 60_000 });
    const [s] = JSON.parse(drill.stdout).scenarios;
    const block = s.timeline.find((e: JsonLine) => e.state === 'blocked');
    expect(block).toMatchObject({ reason: 'agent-waiting', detail: 'claude-hook:PermissionRequest' });
    expect(s.actions.map((a: JsonLine) => a.kind)).toEqual(['escalate']);
  }, TEST_TIMEOUT);
});

describe.skipIf(skipCodexTests())('Codex 0.171.0 notify, live', () => {
  it('a finished turn says idle through the job\'s own notify program, never written to config.toml', async () => {
    const server = await startFakeOpenAI([{ text: 'Hello from the fake model.' }]);
    servers.push(server);
    const h = prepareCodexHome(tempDir('ns-signal-proj-'), server.url, { home: tempDir('ns-signal-codex-home-') });
    const config = readFileSync(join(h.codexHome, 'config.toml'), 'utf8');
    const p = startCli(
      [
        'run', '--json', '--quiet', '--state', tempDir(), '--rules', rulesNamingNothing(), '--cols', '100', '--rows', '30',
        '--name', 'codex', '--cwd', h.project, '--timeout', '90s', '--', process.execPath, codexCliPath(), '--no-daemon', 'say hello',
      ],
      { cwd: h.project, env: scrubbed(h.env, h.removed) },
    );
    await p.waitForJson((o) => o.type === 'job', START, 'the job');
    const dir = jobDir(p);
    const idle = await until(
      () => readJsonl(join(dir, 'log.jsonl')).find((r) => r.msg === 'agent idle (codex-notify:agent-turn-complete)'),
      START,
      () => `an idle state from notify${p.story()}`,
    );
    expect(idle.agent_state).toEqual({ state: 'idle', source: 'codex-notify', detail: 'agent-turn-complete', hint: false });
    expect(readFileSync(join(dir, 'agent-signals.jsonl'), 'utf8')).toContain('"last-assistant-message":"Hello from the fake model."');
    // Codex keeps its own TUI state in config.toml; nightshift's notify never lands there.
    const after = readFileSync(join(h.codexHome, 'config.toml'), 'utf8');
    expect(after.startsWith(config)).toBe(true);
    expect(after).not.toContain('notify');
    await quit(p);
    const markers = (await readCast(join(dir, 'recording.cast'))).events.filter((e) => e.code === 'm').map((e) => e.data);
    expect(markers).toContain('agent-state:idle:said:codex-notify:agent-turn-complete');
  }, TEST_TIMEOUT);
});
