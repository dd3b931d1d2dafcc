import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentVersion } from './agent-version.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ns-agent-version-'));

/** An executable `name` in a fresh folder running `body` (sh); it counts its runs in ./runs. */
function agent(name: string, body: string): { bin: string; runs: () => number } {
  const bin = dir();
  writeFileSync(join(bin, name), `#!/bin/sh\necho x >> "${bin}/runs"\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
  return { bin, runs: () => readFileSync(join(bin, 'runs'), 'utf8').split('\n').filter(Boolean).length };
}

describe('agentVersion', () => {
  it('reads package.json beside a script run by node (how npm installs Claude Code)', async () => {
    const pkg = join(dir(), 'node_modules', '@anthropic-ai', 'claude-code');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'cli.js'), 'process.exit(3)');
    writeFileSync(join(pkg, 'package.json'), '{"name":"@anthropic-ai/claude-code","version":"2.1.112"}');
    await expect(agentVersion([process.execPath, join(pkg, 'cli.js'), '--permission-mode', 'default'], { env: {}, cwd: '/' })).resolves.toBe('2.1.112');
  });

  it('asks `<cmd> --version` found in the job\'s PATH, once per executable, and kills an agent that lingers after answering', async () => {
    const a = agent('claude', 'echo "2.9.0 (Claude Code)"; sleep 30');
    const ctx = { env: { PATH: `${a.bin}:/bin:/usr/bin` }, cwd: '/' };
    const t0 = Date.now();
    await expect(agentVersion(['claude', 'task'], ctx)).resolves.toBe('2.9.0');
    expect(Date.now() - t0).toBeLessThan(3_000);
    await expect(agentVersion(['claude', 'other task'], ctx)).resolves.toBe('2.9.0');
    expect(a.runs()).toBe(1);
  });

  it('gives up after the timeout, and asks again next time', async () => {
    const a = agent('codex', 'sleep 30');
    const ctx = { env: { PATH: `${a.bin}:/bin:/usr/bin` }, cwd: '/', timeoutMs: 300 };
    await expect(agentVersion(['codex'], ctx)).rejects.toThrow(/no answer in 300 ms/);
    await expect(agentVersion(['codex'], ctx)).rejects.toThrow(/no answer/);
    expect(a.runs()).toBe(2);
  });

  it('asks only an agent\'s own command, and says when it is missing', async () => {
    await expect(agentVersion(['bash', '-c', 'claude'], { env: { PATH: '/bin:/usr/bin' }, cwd: '/' })).rejects.toThrow(/not the agent's own command/);
    await expect(agentVersion(['gemini'], { env: { PATH: dir() }, cwd: '/' })).rejects.toThrow(/not found in PATH/);
    const a = agent('gemini', 'echo "no version here"');
    await expect(agentVersion(['gemini'], { env: { PATH: `${a.bin}:/bin:/usr/bin` }, cwd: '/' })).rejects.toThrow(/printed no version/);
  });
});
