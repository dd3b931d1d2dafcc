import { describe, expect, it } from 'vitest';
import { defaultProfile as P } from '../../test/fixtures/trajectories/load.js';
import { checksAfterWrite, classifyCall } from './roles.js';
import { segmentsOf } from './shell.js';

const bash = (command: string) => classifyCall('Bash', { command }, P.rules);

describe('tool roles', () => {
  it.each([
    ['npm test', 'test'],
    ['cd app && npm test 2>&1 | tail -40', 'test'],
    ['npm run test:unit', 'test'],
    ['FOO=1 timeout 60 pytest -q tests/', 'test'],
    ['go test ./...', 'test'],
    ['cargo test --workspace', 'test'],
    ['python -m pytest -x', 'test'],
    ['npx tsc --noEmit', 'test'],
    ['npm test > /dev/null 2>&1; echo $?', 'test'],
    ['ls -la src', 'list'],
    ['find . -name "*.ts"', 'list'],
    ['cat src/a.ts', 'read'],
    ["sed -n '1,200p' src/a.ts", 'read'],
    ['git diff --stat', 'read'],
    ['rg -n "npm test" docs', 'read'],
    ["sed -i 's/a/b/' src/a.ts", 'write'],
    ['echo hi > out.txt', 'write'],
    ["cat > src/a.ts <<'EOF'\nnpm test\nrm -rf /\nEOF", 'write'],
    ['npm install zod', 'write'],
    ['sleep 30', 'poll'],
    ['sleep 60 && gh run view 4242 --json status', 'poll'],
    ['gh run watch 4242', 'poll'],
    ['kubectl get pods -n web', 'poll'],
    ['tail -f logs/app.log', 'poll'],
    ['node scripts/build-index.js', 'shell'],
    ['cd src', 'shell'],
  ])('Bash %j is %s', (command, role) => {
    expect(bash(command).role).toBe(role);
  });

  it('keeps quoted text and heredoc bodies out of the command', () => {
    expect(bash('git commit -m "run npm test; rm -rf build"')).toEqual({ role: 'other', steps: ['other'], sideEffect: true });
    expect(segmentsOf("cat > a <<'EOF'\nnpm test\nEOF\nls")).toEqual(['cat > a <<EOF', 'ls']);
    expect(segmentsOf('grep x <<< "$a" | wc -l')).toEqual(['grep x <<< ""', 'wc -l']);
    expect(segmentsOf('npm test 2>&1 | tail; echo done &')).toEqual(['npm test 2>&1', 'tail', 'echo done']);
  });

  it('orders the commands of one line, so a check after a write verifies it', () => {
    expect(checksAfterWrite(bash("sed -i 's/a/b/' a.ts && npm test"))).toBe(true);
    expect(checksAfterWrite(bash("npm test && sed -i 's/a/b/' a.ts"))).toBe(false);
  });

  it('reads Codex argv and exec_command lines, and Gemini shell calls', () => {
    expect(classifyCall('shell', { command: ['bash', '-lc', 'cat src/main.rs'] }, P.rules).role).toBe('read');
    expect(classifyCall('shell', { command: ['cargo', 'test'] }, P.rules).role).toBe('test');
    expect(classifyCall('shell', { command: ['apply_patch', '*** Begin Patch\n*** End Patch'] }, P.rules).role).toBe('write');
    expect(classifyCall('exec_command', { cmd: 'rg --files src' }, P.rules).role).toBe('read');
    expect(classifyCall('run_shell_command', { command: 'npm run lint' }, P.rules).role).toBe('test');
    expect(classifyCall('Bash', {}, P.rules).role).toBe('shell');
  });

  it.each([
    ['Edit', 'write'],
    ['MultiEdit', 'write'],
    ['Write', 'write'],
    ['NotebookEdit', 'write'],
    ['Read', 'read'],
    ['Grep', 'read'],
    ['Glob', 'list'],
    ['LS', 'list'],
    ['BashOutput', 'poll'],
    ['TodoWrite', 'other'],
    ['apply_patch', 'write'],
    ['write_stdin', 'poll'],
    ['write_file', 'write'],
    ['replace', 'write'],
    ['read_file', 'read'],
    ['list_directory', 'list'],
    ['mcp__ci__get_run_status', 'poll'],
    ['mcp__jobs__wait_for_deploy', 'poll'],
    ['mcp__filesystem__write_file', 'write'],
    ['mcp__github__get_issue', 'read'],
    ['some_unknown_tool', 'other'],
  ])('%s is %s', (tool, role) => {
    expect(classifyCall(tool, {}, P.rules).role).toBe(role);
  });

  it('marks remote changes as side effects, not file writes', () => {
    expect(classifyCall('mcp__github__create_pull_request', {}, P.rules)).toEqual({ role: 'other', steps: ['other'], sideEffect: true });
    expect(bash('git push origin main').sideEffect).toBe(true);
    expect(bash('gh pr create --fill').sideEffect).toBe(true);
  });
});
