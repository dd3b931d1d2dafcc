/**
 * The real Claude Code CLI (2.1.112, installed by scripts/agents/install-claude.sh)
 * offline against fake-anthropic.ts: its real permission dialog in a real PTY,
 * under `nightshift run`, and its real transcript.
 *
 * Skipped on a machine without the CLI; fails in CI (CI set) without it.
 * Needs a build first (npx tsc -p tsconfig.json): bin/nightshift.js runs dist/.
 * Synchronisation by polling with deadlines, never fixed sleeps.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastNonBlankRow } from '../../src/core/screen-snapshot.js';
import { PtyHost } from '../../src/pty/host.js';
import { Screen } from '../../src/screen/screen.js';
import { cleanup, readJsonl, startCli, tempDir, type CliProcess } from '../helpers/cli.js';
import { claudeCommand, prepareClaudeHome, skipClaudeTests, transcripts, type ClaudeHome } from './claude-env.js';
import { contentBlocks, startFakeAnthropic, toolResults, toolResultText, type FakeAnthropic, type ScriptStep } from './fake-anthropic.js';
import { until } from '../helpers/until.js';
import { isState, quitWithCtrlC } from './agent-run.js';

/** Start-up of the CLI (~64 MB of JavaScript) is 1.5–3 s here; a 2-core CI machine running another test file beside is slower. */
const START = 30_000;
const SOON = 15_000;
const TEST_TIMEOUT = 60_000;

const servers: FakeAnthropic[] = [];
const ptys: PtyHost[] = [];
afterEach(async () => {
  // Wait for each killed CLI to be gone: it writes into its HOME while dying, and removing that races it.
  await Promise.all(
    ptys.splice(0).map((p) => {
      p.dispose();
      return Promise.race([p.exited, new Promise((r) => setTimeout(r, 5_000))]);
    }),
  );
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(script: ScriptStep[]): Promise<FakeAnthropic> {
  const f = await startFakeAnthropic(script);
  servers.push(f);
  return f;
}

/** The environment for startCli: HOME and the CLI's variables set, leaky ones removed. */
function cliEnv(h: ClaudeHome): Record<string, string | undefined> {
  return { ...h.env, ...Object.fromEntries(h.removed.map((k) => [k, undefined])) };
}

function runClaude(h: ClaudeHome, state: string, prompt: string): CliProcess {
  return startCli(
    [
      'run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30',
      '--name', 'claude', '--cwd', h.project, '--timeout', '90s', '--', ...claudeCommand(), prompt,
    ],
    { cwd: h.project, env: cliEnv(h) },
  );
}

const quit = (p: CliProcess) => quitWithCtrlC(p, SOON);


/** The screen kept in the job's evidence for its first blocked episode. */
function evidenceScreen(p: CliProcess): string[] {
  const job = p.jsonLines()[0]!;
  expect(job.type).toBe('job');
  const prompt = readJsonl(join(String(job.dir), 'evidence.jsonl')).find((r) => r.type === 'prompt');
  expect(prompt).toBeDefined();
  return prompt!.screen as string[];
}

/** Transcript records (one JSON object per line) of the session. */
function transcriptRecords(h: ClaudeHome): Record<string, any>[] {
  return transcripts(h).flatMap((f) => readJsonl(f));
}

/** The session id the CLI gave this run (every transcript record carries it). */
function sessionId(h: ClaudeHome): string {
  const ids = [...new Set(transcriptRecords(h).map((r) => r.sessionId).filter((x) => typeof x === 'string'))];
  expect(ids).toHaveLength(1);
  expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  return ids[0] as string;
}

function transcriptToolResults(h: ClaudeHome): any[] {
  return transcriptRecords(h)
    .filter((r) => r.type === 'user')
    .flatMap((r) => contentBlocks(r.message))
    .filter((b) => b?.type === 'tool_result');
}

function transcriptToolUses(h: ClaudeHome): any[] {
  return transcriptRecords(h)
    .filter((r) => r.type === 'assistant')
    .flatMap((r) => contentBlocks(r.message))
    .filter((b) => b?.type === 'tool_use');
}

describe.skipIf(skipClaudeTests())('real Claude Code 2.1.112 offline, under nightshift run', () => {
  it('touch made.txt: the permission dialog blocks the job (claude-code-permission); "1" runs it, the tool_result goes back, the transcript has both', async () => {
    const server = await fake([{ tool: 'Bash', command: 'touch made.txt' }, { text: 'I created made.txt.' }]);
    const h = prepareClaudeHome(tempDir('ns-claude-proj-'), server.url, { home: tempDir('ns-claude-home-') });
    const state = tempDir();
    const p = runClaude(h, state, 'please run touch made.txt');

    const blocked = await p.waitForJson(isState('blocked'), START, 'blocked state');
    expect(blocked).toMatchObject({ reason: 'prompt', rule: 'claude-code-permission', class: 'permission' });
    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalate action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'claude-code-permission', class: 'permission', reason: 'prompt' });
    const dialog = evidenceScreen(p).join('\n');
    expect(dialog).toContain('Do you want to proceed?');
    expect(dialog).toContain('touch made.txt');
    // Nothing ran yet, but the tool_use is already in the transcript.
    expect(existsSync(join(h.project, 'made.txt'))).toBe(false);
    await until(() => transcriptToolUses(h).some((b) => b.name === 'Bash' && b.input?.command === 'touch made.txt'), SOON, 'tool_use in the transcript');

    p.write('1');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    await until(() => existsSync(join(h.project, 'made.txt')), SOON, 'made.txt');
    const results = await until(() => (server.turns >= 2 ? toolResults(server.requests) : undefined), SOON, 'a second model request');
    expect(results).toHaveLength(1);
    expect(results[0].is_error).not.toBe(true);
    const toolUseId = results[0].tool_use_id as string;
    expect(server.requests.some((r) => r.step && 'tool' in r.step)).toBe(true);

    const ok = await until(() => transcriptToolResults(h).find((b) => b.tool_use_id === toolUseId), SOON, 'tool_result in the transcript');
    expect(ok.is_error).not.toBe(true);
    expect(transcripts(h)).toHaveLength(1);
    expect(transcripts(h)[0]).toBe(join(h.home, '.claude', 'projects', h.project.replace(/[^A-Za-z0-9]/g, '-'), `${sessionId(h)}.jsonl`));

    await quit(p);
    // One blocked episode, answered by the person; no other prompt was seen.
    const states = p.jsonLines().filter((o) => o.type === 'state').map((o) => `${o.state}/${o.reason}`);
    expect(states.slice(0, 3)).toEqual(['running/started', 'blocked/prompt', 'running/prompt-cleared']);
    expect(states.filter((s) => s.startsWith('blocked'))).toHaveLength(1);
  }, TEST_TIMEOUT);

  it('rm -rf build: the dialog answered with Escape declines; build/ survives, the transcript records the rejection', async () => {
    const server = await fake([{ tool: 'Bash', command: 'rm -rf build', description: 'Remove the build folder' }, { text: 'Removed build/.' }]);
    const project = tempDir('ns-claude-proj-');
    mkdirSync(join(project, 'build'));
    writeFileSync(join(project, 'build', 'keep.txt'), 'precious\n');
    const h = prepareClaudeHome(project, server.url, { home: tempDir('ns-claude-home-') });
    const state = tempDir();
    const p = runClaude(h, state, 'please remove the build folder');

    // The rule says permission; the responder's risk patterns (rules/risk.yaml) make `rm -rf` destructive.
    const blocked = await p.waitForJson(isState('blocked'), START, 'blocked state');
    expect(blocked).toMatchObject({ reason: 'prompt', rule: 'claude-code-permission', class: 'destructive' });
    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalate action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'claude-code-permission', class: 'destructive', reason: 'prompt' });
    expect(evidenceScreen(p).join('\n')).toMatch(/ Bash command\n\n   rm -rf build\n   Remove the build folder\n\n Do you want to proceed\?/);

    p.write('\x1b');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    const rejected = await until(() => transcriptToolResults(h).find((b) => b.is_error === true), SOON, 'rejected tool_result in the transcript');
    expect(toolResultText(rejected)).toMatch(/doesn't want to proceed/);
    expect(readFileSync(join(h.project, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
    // Escape interrupts the turn: Claude waits for the person and does not send the rejection to the model yet.
    expect(server.turns).toBe(1);
    expect(toolResults(server.requests)).toEqual([]);

    await quit(p);
    expect(readFileSync(join(h.project, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
  }, TEST_TIMEOUT);
});

describe.skipIf(skipClaudeTests())('real Claude Code 2.1.112 offline, screen facts for the rule', () => {
  it('the dialog is drawn on the main screen, the (hidden) cursor sits on "❯ 1. Yes", 4 rows above the last non-blank row', async () => {
    const server = await fake([{ tool: 'Bash', command: 'npm install left-pad' }, { text: 'Installed.' }]);
    const h = prepareClaudeHome(tempDir('ns-claude-proj-'), server.url, { home: tempDir('ns-claude-home-') });
    const [command, ...args] = claudeCommand();
    const screen = new Screen(100, 30);
    const pty = PtyHost.spawn({ command, args: [...args, 'please install left-pad'], cwd: h.project, env: h.env, cols: 100, rows: 30 });
    ptys.push(pty);
    screen.onReply((d) => pty.write(d));
    let raw = '';
    let parsed = Promise.resolve();
    pty.onData((d) => {
      raw += d;
      parsed = screen.write(d);
    });

    await until(() => {
      const s = screen.snapshot();
      return s.rows.some((r) => /^\s*Esc to cancel/.test(r)) ? s : undefined;
    }, START, 'the permission dialog');
    await parsed;
    const s = screen.snapshot();
    const text = s.rows.join('\n');
    expect(text).toContain(' Bash command');
    expect(text).toContain('npm install left-pad');
    expect(text).toMatch(/ Do you want to proceed\?\n ❯ 1\. Yes\n   2\. Yes, and [^\n]*\n   3\. No\n\n Esc to cancel · Tab to amend/);

    expect(s.alternate).toBe(false);
    expect(raw).not.toContain('\x1b[?1049h');
    // Ink hides the cursor for the whole session and parks it on the selected option.
    expect(raw).toContain('\x1b[?25l');
    expect(raw).not.toContain('\x1b[?25h');
    const yesRow = s.rows.findIndex((r) => /^ ❯ 1\. Yes$/.test(r));
    expect(s.cursor.y).toBe(yesRow);
    expect(s.cursor.x).toBe(1);
    expect(lastNonBlankRow(s.rows) - s.cursor.y).toBe(4);

    pty.write('\x1b');
    await until(() => /Interrupted · What should Claude do instead\?/.test(screen.snapshot().rows.join('\n')), SOON, 'Interrupted after Escape');
    expect(server.turns).toBe(1);
  }, TEST_TIMEOUT);
});
