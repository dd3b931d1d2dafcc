/**
 * The real Claude Code 2.1.112 (scripts/agents/install-claude.sh) under a
 * PtyHost, offline against test/agents/fake-anthropic.ts: the follower finds
 * the session's transcript by the job's pid and turns it into events.
 *
 * Skipped on a machine without the CLI; fails in CI (CI set) without it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCommand, prepareClaudeHome, skipClaudeTests, transcripts } from '../../test/agents/claude-env.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../test/agents/fake-anthropic.js';
import type { AgentEvent } from '../core/agent-events.js';
import type { ToolEvent } from '../core/tool-events.js';
import { PtyHost } from '../pty/host.js';
import { Screen } from '../screen/screen.js';
import { adapterFor, detectAgent, TranscriptFollower } from './index.js';
import { until } from '../../test/helpers/until.js';

const START = 30_000;
const SOON = 15_000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Hangs up on the CLI and waits (briefly) for it to go, so it stops writing into folders we remove. */
async function stop(pty: PtyHost): Promise<void> {
  pty.dispose();
  await Promise.race([pty.exited, new Promise((r) => setTimeout(r, 3000))]);
}

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  // The CLI may still be writing as it exits: retry a folder that refills.
  cleanups.push(() => rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  return d;
}

describe.skipIf(skipClaudeTests())('TranscriptFollower on the real Claude Code 2.1.112', () => {
  it('touch x, allowed at the dialog: tool-call Bash, an ok tool-result, the end of the turn; tool events pair', async () => {
    const server: FakeAnthropic = await startFakeAnthropic([{ tool: 'Bash', command: 'touch x' }, { text: 'I created x.' }]);
    cleanups.push(() => server.close());
    const h = prepareClaudeHome(tempDir('ns-ad-live-proj-'), server.url, { home: tempDir('ns-ad-live-home-') });
    const [command, ...args] = claudeCommand();
    const argv = [command, ...args, 'please run touch x'];
    expect(detectAgent(argv)).toBe('claude');

    const startedAt = Date.now();
    const pty = PtyHost.spawn({ command, args: argv.slice(1), cwd: h.project, env: h.env, cols: 100, rows: 30 });
    cleanups.push(() => stop(pty));
    const screen = new Screen(100, 30);
    screen.onReply((d) => pty.write(d));
    pty.onData((d) => void screen.write(d));

    const follower = new TranscriptFollower(adapterFor('claude'), { cwd: h.project, startedAt, env: h.env, argv, pid: pty.pid, claimed: new Set() });
    cleanups.push(() => follower.close());
    const events: AgentEvent[] = [];
    const tools: ToolEvent[] = [];
    const problems: string[] = [];
    follower.onAgentEvent((e) => events.push(e));
    follower.onEvent((e) => tools.push(e));
    follower.onProblem((m) => problems.push(m));

    // The tool_use is in the transcript before the dialog is answered.
    await until(() => events.find((e) => e.kind === 'tool-call'), START, 'the tool call');
    await until(() => screen.snapshot().rows.some((r) => /Do you want to proceed\?/.test(r)), SOON, 'the permission dialog');
    expect(tools).toEqual([{ phase: 'start', name: 'Bash', id: expect.any(String) }]);
    pty.write('1');
    await until(() => events.some((e) => e.kind === 'turn-end'), SOON, 'the end of the turn');
    expect(existsSync(join(h.project, 'x'))).toBe(true);

    expect(await follower.found).toBe(transcripts(h)[0]);
    expect(events.map((e) => e.kind)).toEqual(['turn-start', 'usage', 'tool-call', 'tool-result', 'usage', 'assistant-text', 'turn-end']);
    const call = events.find((e) => e.kind === 'tool-call');
    const result = events.find((e) => e.kind === 'tool-result');
    expect(call).toMatchObject({ tool: 'Bash', args: { command: 'touch x' } });
    expect(result).toMatchObject({ tool: 'Bash', ok: true, callId: call!.id, errorHead: null });
    expect(events.at(-1)).toMatchObject({ kind: 'turn-end', finalText: 'I created x.' });
    expect(tools).toEqual([
      { phase: 'start', name: 'Bash', id: call!.id },
      { phase: 'finish', name: 'Bash', id: call!.id, ok: true },
    ]);
    expect(problems).toEqual([]);

    // The pid alone finds it (via ~/.claude/sessions/<pid>.json), even for a job "started" after the file.
    const byPid = await adapterFor('claude').locate({ cwd: h.project, startedAt: Date.now() + 60_000, env: h.env, pid: pty.pid, claimed: new Set() });
    expect(byPid).toBe(transcripts(h)[0]);
  }, 60_000);

  it('two sessions at once in one cwd and one HOME: each follower gets its own session by pid', async () => {
    const home = tempDir('ns-ad-live-home-');
    const project = tempDir('ns-ad-live-proj-');
    const claimed = new Set<string>();
    const startedAt = Date.now();
    const jobs = await Promise.all(
      ['A', 'B'].map(async (name) => {
        const server = await startFakeAnthropic([{ text: `Answer ${name}.` }]);
        cleanups.push(() => server.close());
        const h = prepareClaudeHome(project, server.url, { home });
        const [command, ...args] = claudeCommand();
        const pty = PtyHost.spawn({ command, args: [...args, `say ${name}`], cwd: h.project, env: h.env, cols: 100, rows: 30 });
        cleanups.push(() => stop(pty));
        // No prompt in argv: only the pid can tell the two sessions apart.
        const f = new TranscriptFollower(adapterFor('claude'), { cwd: h.project, startedAt, env: h.env, argv: [command, ...args], pid: pty.pid, claimed });
        cleanups.push(() => f.close());
        const events: AgentEvent[] = [];
        f.onAgentEvent((e) => events.push(e));
        return { name, f, events, h };
      }),
    );
    for (const j of jobs) {
      await until(() => j.events.some((e) => e.kind === 'turn-end'), START, `the end of turn ${j.name}`);
      expect(j.events.find((e) => e.kind === 'turn-start')).toMatchObject({ text: `say ${j.name}` });
      expect(j.events.at(-1)).toMatchObject({ kind: 'turn-end', finalText: `Answer ${j.name}.` });
    }
    expect(transcripts(jobs[0]!.h)).toHaveLength(2);
    expect(new Set([jobs[0]!.f.path, jobs[1]!.f.path]).size).toBe(2);
  }, 60_000);
});
