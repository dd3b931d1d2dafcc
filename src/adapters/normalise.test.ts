import { describe, expect, it } from 'vitest';
import { canonicalCall, errorHead, fingerprint, normaliseOutput } from './normalise.js';
import { detectAgent, parseAgentKind } from './types.js';

describe('canonicalCall', () => {
  it('same call with other whitespace and key order: same canonical', () => {
    const a = canonicalCall('Bash', { command: 'npm   test', description: 'Run tests', timeout: 60 });
    const b = canonicalCall('Bash', { timeout: 60, description: ' Run  tests', command: 'npm test\n' });
    expect(a).toBe(b);
    expect(a).toBe('Bash {"command":"npm test","description":"Run tests","timeout":60}');
  });

  it('nested objects are sorted too', () => {
    expect(canonicalCall('Edit', { b: { y: 1, x: [{ q: 2, p: 1 }] }, a: 1 })).toBe('Edit {"a":1,"b":{"x":[{"p":1,"q":2}],"y":1}}');
  });

  it('temp dirs, uuids, hex ids and big numbers are masked', () => {
    const a = canonicalCall('Bash', { command: 'cat /tmp/ns-proj-AbC123/out.log; kill 48213; git show 3f9a2c1d; run 0b7c9f4e-1a2b-4c3d-8e9f-001122334455' });
    const b = canonicalCall('Bash', { command: 'cat /tmp/ns-proj-ZzZ999/out.log; kill 51002; git show 9e8d7c6b; run 11111111-2222-4333-8444-555555555555' });
    expect(a).toBe(b);
    expect(a).toContain('cat <tmp>/out.log; kill <n>; git show <hex>; run <uuid>');
  });

  it('different commands, tools or small numbers stay different', () => {
    expect(canonicalCall('Bash', { command: 'npm test' })).not.toBe(canonicalCall('Bash', { command: 'npm run build' }));
    expect(canonicalCall('Bash', { command: 'ls' })).not.toBe(canonicalCall('Read', { command: 'ls' }));
    expect(canonicalCall('Bash', { command: 'sleep 5' })).not.toBe(canonicalCall('Bash', { command: 'sleep 50' }));
    expect(canonicalCall('Read', { file_path: 'a.ts', offset: 0 })).not.toBe(canonicalCall('Read', { file_path: 'a.ts', offset: 100 }));
    expect(canonicalCall('Read', { file_path: 'file1.txt' })).not.toBe(canonicalCall('Read', { file_path: 'file2.txt' }));
  });
});

describe('fingerprint', () => {
  it('ignores times, durations, pids and ids; sees real differences', () => {
    const a = 'PASS (12 tests) in 3.2s at 2026-01-01T10:00:00Z, pid 4123, build 9f8e7d6c\nTook 850ms';
    const b = 'PASS  (12 tests) in 4.9s at 2026-03-05T11:22:33.123Z, pid 77, build 1a2b3c4d5e\nTook 1203ms';
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(fingerprint(a)).not.toBe(fingerprint('FAIL (12 tests) in 3.2s'));
    expect(normaliseOutput('[12:01:02] done in 2 minutes')).toBe('[<time>] done in <dur>');
  });
});

describe('errorHead', () => {
  it('first line, ≤ 100 chars; an exit banner joined with the line after it', () => {
    expect(errorHead('\n  boom: it broke\nstack…')).toBe('boom: it broke');
    expect(errorHead('Exit code 2\nmake: *** [all] Error 2')).toBe('Exit code 2: make: *** [all] Error 2');
    expect(errorHead('x'.repeat(300))).toHaveLength(100);
    expect(errorHead('')).toBe('');
  });
});

describe('detectAgent', () => {
  it.each([
    [['claude', '--permission-mode', 'default'], 'claude'],
    [['/usr/local/bin/codex', 'exec', 'hi'], 'codex'],
    [['gemini'], 'gemini'],
    [['node', '/x/node_modules/@anthropic-ai/claude-code/cli.js', 'hi'], 'claude'],
    [['/usr/bin/node', '--no-warnings', '/y/lib/node_modules/@google/gemini-cli/dist/index.js'], 'gemini'],
    [['node', '/z/node_modules/@openai/codex/bin/codex.js'], 'codex'],
    [['npx', '-y', '@openai/codex@0.50.0'], 'codex'],
    [['env', 'FOO=1', 'claude', 'do it'], 'claude'],
    [['timeout', '10m', 'gemini', '-p', 'x'], 'gemini'],
    [['bash', '-c', 'claude'], 'generic'],
    [['python3', 'agent.py', 'claude'], 'generic'],
    [['node', 'script.js'], 'generic'],
    [[], 'generic'],
  ] as const)('%j → %s', (argv, kind) => {
    expect(detectAgent(argv)).toBe(kind);
  });

  it('an override by name wins; auto detects; unknown names are refused', () => {
    expect(detectAgent(['my-wrapper.sh'], 'Claude')).toBe('claude');
    expect(detectAgent(['claude'], 'generic')).toBe('generic');
    expect(detectAgent(['codex'], 'auto')).toBe('codex');
    expect(() => parseAgentKind('aider')).toThrow(/unknown agent "aider"; expected one of claude, codex, gemini, generic/);
  });
});
