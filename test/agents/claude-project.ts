/**
 * Set-up shared by the tests that run the real Claude Code CLI under
 * nightshift (probes.test.ts, daemon-outcome.test.ts): a project folder, a
 * HOME that lets bypassPermissions start without its warning, the job's
 * environment, the CLI's argv.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { claudeCliPath, claudeMissingReason, prepareClaudeHome, type ClaudeHome } from './claude-env.js';
import type { ScriptStep } from './fake-anthropic.js';

export const bash = (command: string): ScriptStep => ({ tool: 'Bash', command });

/** A project folder; as a git repository with one commit when asked (fake-completion reads `git status`). */
export function project(o: { git?: boolean } = {}): string {
  const dir = tempDir('ns-probe-proj-');
  if (o.git) {
    writeFileSync(join(dir, 'README.md'), '# demo\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=nightshift', '-c', 'user.email=ns@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
        cwd: dir,
        stdio: 'ignore',
      });
    git('init', '-q');
    git('add', 'README.md');
    git('commit', '-q', '-m', 'initial');
  }
  return dir;
}

/** A fresh Claude HOME (claude-env.ts) that also lets bypassPermissions start without its warning dialog. */
export function claudeHome(projectDir: string, baseUrl: string, home = tempDir('ns-probe-home-')): ClaudeHome {
  const h = prepareClaudeHome(projectDir, baseUrl, { home });
  mkdirSync(join(h.home, '.claude'), { recursive: true });
  writeFileSync(join(h.home, '.claude', 'settings.json'), `${JSON.stringify({ skipDangerousModePermissionPrompt: true }, null, 2)}\n`);
  return h;
}

/**
 * nightshift's (and so the job's) environment: the CLI's variables, leaky
 * ones removed, npm settings of the test runner removed (Claude runs
 * `npm config get` at start), IS_SANDBOX=1 for bypassPermissions as root.
 */
export function jobEnv(h: ClaudeHome): Record<string, string | undefined> {
  const scrub = Object.fromEntries(Object.keys(process.env).filter((k) => /^npm_/i.test(k)).map((k) => [k, undefined]));
  return { ...h.env, ...scrub, ...Object.fromEntries(h.removed.map((k) => [k, undefined])), IS_SANDBOX: '1' };
}

/** argv of the CLI that runs Bash without asking; throws (in CI) when it is not installed. */
export function claudeArgv(): string[] {
  const missing = claudeMissingReason();
  if (missing !== undefined) throw new Error(missing);
  return [process.execPath, claudeCliPath(), '--permission-mode', 'bypassPermissions'];
}

