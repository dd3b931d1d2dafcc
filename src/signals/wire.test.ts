import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentState } from '../core/agent-state.js';
import { until } from '../../test/helpers/until.js';
import { SessionWatch } from './claude-session.js';
import { prepareLaunch } from './wire.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function job(root = tmpdir()) {
  const dir = mkdtempSync(join(root, 'ns-wire-'));
  dirs.push(dir);
  return { dir, paths: { agentSignals: join(dir, 'agent-signals.jsonl'), agentSettings: join(dir, 'agent-settings.json') } };
}
const CLI = '/opt/x/node_modules/@anthropic-ai/claude-code/cli.js';

describe('Claude: the job\'s own --settings', () => {
  it('goes right after the claude word; the file holds our hooks and is private; the signals file exists', async () => {
    const { dir, paths } = job();
    const l = await prepareLaunch('claude', { command: 'node', args: [CLI, '--permission-mode', 'default', 'hi'], cwd: dir, env: {} }, paths);
    expect(l.problem).toBeUndefined();
    expect(l.args).toEqual([CLI, '--settings', paths.agentSettings, '--permission-mode', 'default', 'hi']);
    const s = JSON.parse(readFileSync(paths.agentSettings, 'utf8'));
    expect(Object.keys(s.hooks).sort()).toEqual(['Notification', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PreToolUse', 'Stop', 'UserPromptSubmit']);
    expect(s.hooks.Notification[0].matcher).toBeUndefined();
    expect(statSync(paths.agentSettings).mode & 0o777).toBe(0o600);
    expect(statSync(paths.agentSignals).mode & 0o777).toBe(0o600);
  });

  it('the hook command appends its stdin as one line and prints nothing', async () => {
    const { dir, paths } = job();
    await prepareLaunch('claude', { command: 'claude', args: [], cwd: dir, env: {} }, paths);
    const command = JSON.parse(readFileSync(paths.agentSettings, 'utf8')).hooks.Stop[0].hooks[0].command as string;
    for (const input of ['{"hook_event_name":"Stop"}', `{"hook_event_name":"PostToolUse","o":"${'x'.repeat(100_000)}"}`]) {
      expect(execFileSync('sh', ['-c', command], { input, encoding: 'utf8' })).toBe('');
    }
    const got = readFileSync(paths.agentSignals, 'utf8').split('\n');
    expect(got[0]).toBe('{"hook_event_name":"Stop"}');
    expect(got[1]!.length).toBe(8192);
  });

  it('a --settings of the user\'s own (file or JSON) is merged into ours and taken out of the command line', async () => {
    const { dir, paths } = job();
    const theirs = { model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } };
    writeFileSync(join(dir, 'mine.json'), JSON.stringify(theirs));
    const l = await prepareLaunch('claude', { command: 'claude', args: ['--settings', 'mine.json', 'hi'], cwd: dir, env: {} }, paths);
    expect(l.args).toEqual(['--settings', paths.agentSettings, 'hi']);
    const s = JSON.parse(readFileSync(paths.agentSettings, 'utf8'));
    expect(s.model).toBe('opus');
    expect(s.hooks.Stop).toHaveLength(2);
    expect(s.hooks.Stop[0].hooks[0].command).toBe('say done');
    const inline = await prepareLaunch('claude', { command: 'claude', args: ['--settings={"model":"x"}'], cwd: dir, env: {} }, paths);
    expect(inline.args).toEqual(['--settings', paths.agentSettings]);
    expect(JSON.parse(readFileSync(paths.agentSettings, 'utf8')).model).toBe('x');
    expect(readFileSync(join(dir, 'mine.json'), 'utf8')).toBe(JSON.stringify(theirs));
  });

  it('an unreadable --settings of theirs leaves their command line alone, with the reason', async () => {
    const { dir, paths } = job();
    const l = await prepareLaunch('claude', { command: 'claude', args: ['--settings', 'missing.json'], cwd: dir, env: {} }, paths);
    expect(l.args).toEqual(['--settings', 'missing.json']);
    expect(l.stateOf).toBeUndefined();
    expect(l.problem).toMatch(/cannot read the job's own --settings "missing.json"/);
  });

  it('a plain program and an agent word nightshift cannot find are left alone', async () => {
    const { dir, paths } = job();
    expect((await prepareLaunch('generic', { command: 'bash', args: ['-c', 'x'], cwd: dir, env: {} }, paths)).args).toEqual(['-c', 'x']);
    const l = await prepareLaunch('claude', { command: './my-wrapper.sh', args: ['x'], cwd: dir, env: {} }, paths);
    expect(l).toMatchObject({ args: ['x'], stateOf: undefined });
    expect(l.problem).toMatch(/cannot tell where the claude command starts/);
  });
});

describe('Codex: -c notify for one job', () => {
  it('goes after the codex word; the program records the JSON argument and runs the user\'s own notify with it', async () => {
    const { dir, paths } = job();
    mkdirSync(join(dir, 'codex'));
    const log = join(dir, 'theirs.txt');
    writeFileSync(join(dir, 'codex', 'config.toml'), `model = "x"\nnotify = ["sh", "-c", "printf '%s' \\"$1\\" > ${log}", "n"] # theirs\n[projects."/x"]\nnotify = "no"\n`);
    const l = await prepareLaunch('codex', { command: 'codex', args: ['--no-daemon', 'task'], cwd: dir, env: { CODEX_HOME: join(dir, 'codex') } }, paths);
    expect(l.problem).toBeUndefined();
    expect(l.args[0]).toBe('-c');
    expect(l.args.slice(2)).toEqual(['--no-daemon', 'task']);
    const argv = JSON.parse(l.args[1]!.slice('notify='.length)) as string[];
    execFileSync(argv[0]!, [...argv.slice(1), '{"type":"agent-turn-complete"}']);
    expect(readFileSync(paths.agentSignals, 'utf8')).toBe('{"type":"agent-turn-complete"}\n');
    expect(readFileSync(log, 'utf8')).toBe('{"type":"agent-turn-complete"}');
  });

  it('a notify the job sets itself wins; one in config.toml we cannot read is kept (no wiring)', async () => {
    const { dir, paths } = job();
    const own = await prepareLaunch('codex', { command: 'codex', args: ['-c', 'notify=["x"]'], cwd: dir, env: { CODEX_HOME: dir } }, paths);
    expect(own).toMatchObject({ args: ['-c', 'notify=["x"]'], stateOf: undefined });
    writeFileSync(join(dir, 'config.toml'), "notify = ['literal', 'strings']\n");
    const odd = await prepareLaunch('codex', { command: 'codex', args: [], cwd: dir, env: { CODEX_HOME: dir } }, paths);
    expect(odd.args).toEqual([]);
    expect(odd.problem).toMatch(/is not a one-line array/);
  });
});

describe('Gemini: its own system settings', () => {
  it('leaves Gemini alone when its security check would refuse the file (a folder not owned by root, or writable by others, such as /tmp)', async () => {
    const { dir, paths } = job();
    const l = await prepareLaunch('gemini', { command: 'gemini', args: ['-p', 'x'], cwd: dir, env: {} }, paths);
    expect(l.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBeUndefined();
    expect(l.problem).toMatch(/owned by root and writable by no one else/);
  });

  // Gemini 0.61 takes system settings only from root-owned, private folders: a root's home is one.
  it.skipIf(process.getuid?.() !== 0)('points GEMINI_CLI_SYSTEM_SETTINGS_PATH at the job\'s file: the system settings in force plus our hooks', async () => {
    const { dir, paths } = job(homedir());
    chmodSync(dir, 0o700);
    writeFileSync(join(dir, 'system.json'), '// admin\n{"tools": {"sandbox": true}, "hooks": {"BeforeTool": [{"matcher": "x", "hooks": []}]}}');
    const l = await prepareLaunch('gemini', { command: 'gemini', args: ['-p', 'x'], cwd: dir, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(dir, 'system.json') } }, paths);
    expect(l.args).toEqual(['-p', 'x']);
    expect(l.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBe(paths.agentSettings);
    const s = JSON.parse(readFileSync(paths.agentSettings, 'utf8'));
    expect(s.tools).toEqual({ sandbox: true });
    expect(s.hooks.BeforeTool).toHaveLength(2);
    expect(Object.keys(s.hooks).sort()).toEqual(['AfterAgent', 'AfterTool', 'BeforeAgent', 'BeforeTool', 'Notification']);
  });
});

describe('the session file poller', () => {
  it('finds the job\'s file by pid, reads it when it changes, says each new status once', async () => {
    const { dir } = job();
    const sessions = join(dir, '.claude', 'sessions');
    mkdirSync(sessions, { recursive: true });
    const file = join(sessions, `${process.pid}.json`);
    const write = (status?: string) =>
      writeFileSync(file, JSON.stringify({ pid: process.pid, sessionId: 's', version: '2.1.332', ...(status && { status }), ...(status === 'waiting' && { waitingFor: 'permission prompt' }) }));
    write();
    const got: AgentState[] = [];
    const w = new SessionWatch({ env: { HOME: dir }, pid: process.pid, everyMs: 20, hint: (s) => got.push(s) });
    try {
      for (const status of ['busy', 'waiting', 'idle']) {
        write(status);
        await until(() => got.length > 0 && got.at(-1)!.detail.startsWith(status === 'busy' ? 'busy' : status), 5_000, status, 10);
      }
      expect(got.map((s) => `${s.state}:${s.detail}:${s.hint}`)).toEqual(['working:busy:true', 'waiting:waiting:permission prompt:true', 'idle:idle:true']);
    } finally {
      w.stop();
    }
  });
});
