/**
 * Runs the real Claude Code CLI offline: a fresh HOME that skips the first-run
 * screens and trusts the project folder, and an environment that points the
 * CLI at a fake model server (fake-anthropic.ts) with no other traffic.
 *
 * The CLI itself is installed by scripts/agents/install-claude.sh into
 * ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/claude-2.1.112;
 * NIGHTSHIFT_CLAUDE_CLI may name another cli.js.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-env.js';

export const CLAUDE_VERSION = '2.1.112';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const INSTALL_SCRIPT = join(ROOT, 'scripts', 'agents', 'install-claude.sh');

/** Where install-claude.sh puts cli.js (whether or not it is there). */
export function claudeCliPath(): string {
  if (process.env.NIGHTSHIFT_CLAUDE_CLI) return process.env.NIGHTSHIFT_CLAUDE_CLI;
  const cache = process.env.NIGHTSHIFT_AGENT_CACHE || join(ROOT, '.cache', 'agents');
  return join(cache, `claude-${CLAUDE_VERSION}`, 'node_modules', '@anthropic-ai', 'claude-code', 'cli.js');
}

/** Why the CLI cannot run here, or undefined when it can. */
export function claudeMissingReason(): string | undefined {
  const cli = claudeCliPath();
  if (existsSync(cli)) return undefined;
  return `Claude Code ${CLAUDE_VERSION} is not installed (no ${cli}); run scripts/agents/install-claude.sh (npm run agents:install)`;
}

/**
 * Tests of the real CLI are skipped on a developer machine without it, but
 * must fail in CI (CI is set), which has to run them.
 */
let warned = false;
export function skipClaudeTests(): boolean {
  const reason = claudeMissingReason();
  if (reason === undefined) return false;
  if (process.env.CI) return false; // the tests run and fail with the reason
  if (!warned) console.warn(`skipping Claude Code tests: ${reason}`);
  warned = true;
  return true;
}

/** The newest release checked, a native binary (install-claude.sh 2.1.332); NIGHTSHIFT_CLAUDE_NATIVE may name another. */
export const CLAUDE_NATIVE_VERSION = '2.1.332';

export function claudeNativePath(): string {
  if (process.env.NIGHTSHIFT_CLAUDE_NATIVE) return process.env.NIGHTSHIFT_CLAUDE_NATIVE;
  const cache = process.env.NIGHTSHIFT_AGENT_CACHE || join(ROOT, '.cache', 'agents');
  return join(cache, `claude-${CLAUDE_NATIVE_VERSION}`, 'node_modules', '@anthropic-ai', `claude-code-linux-${process.arch}`, 'claude');
}

/** As skipClaudeTests, for the native release: skipped here without it, never in CI. */
export function skipClaudeNativeTests(): boolean {
  if (existsSync(claudeNativePath()) || process.env.CI) return false;
  console.warn(`skipping Claude Code ${CLAUDE_NATIVE_VERSION} tests: no ${claudeNativePath()}; run scripts/agents/install-claude.sh ${CLAUDE_NATIVE_VERSION}`);
  return true;
}

/** argv of the native CLI in the default permission mode (2.1.3xx default to auto mode, which never asks). Throws when it is not installed. */
export function claudeNativeCommand(): [string, ...string[]] {
  const cli = claudeNativePath();
  if (!existsSync(cli)) throw new Error(`Claude Code ${CLAUDE_NATIVE_VERSION} is not installed (no ${cli}); run scripts/agents/install-claude.sh ${CLAUDE_NATIVE_VERSION}`);
  return [cli, '--permission-mode', 'default'];
}

/** argv of the CLI in the default permission mode (it asks before changing commands). Throws when it is not installed. */
export function claudeCommand(): [string, ...string[]] {
  const reason = claudeMissingReason();
  if (reason !== undefined) throw new Error(reason);
  return [process.execPath, claudeCliPath(), '--permission-mode', 'default'];
}

/** Variables of the surrounding environment that would change what the CLI does (a key, a model, a config dir, a parent session). */
const LEAKY = /^(ANTHROPIC_|CLAUDE|CLAUDECODE$|AWS_|GOOGLE_|VERTEX_|OTEL_|MCP_|NODE_OPTIONS$|DEBUG$|XDG_CONFIG_HOME$|HTTPS?_PROXY$|https?_proxy$|NO_PROXY$|no_proxy$)/;

export interface ClaudeHome {
  /** The fresh HOME (contains .claude.json; the CLI creates .claude/). */
  home: string;
  /** realpath of the project: the key in .claude.json and the cwd to run in. */
  project: string;
  /** The CLI's variables only (what `nightshift run --env` would pass). */
  vars: Record<string, string>;
  /** A whole environment for the child: this process's, minus leaky variables, plus `vars`. */
  env: Record<string, string>;
  /** Names removed from this process's environment (pass as undefined to helpers that merge). */
  removed: string[];
  /** Folder of the session transcripts: ~/.claude/projects/<project, every character but [A-Za-z0-9] replaced by ->. */
  transcriptDir: string;
}

/**
 * A fresh HOME for one run of the CLI against `baseUrl` in `projectDir`:
 * onboarding done, dark theme, no auto-mode nudge, the folder trusted and no
 * tool pre-allowed, so every changing command brings the permission dialog.
 */
export function prepareClaudeHome(projectDir: string, baseUrl: string, o: { home?: string } = {}): ClaudeHome {
  const project = realpathSync(projectDir);
  const home = o.home ?? mkdtempSync(join(tmpdir(), 'ns-claude-home-'));
  mkdirSync(home, { recursive: true });
  const config = {
    hasCompletedOnboarding: true,
    theme: 'dark',
    hasSeenAutoDefaultNudge: true,
    projects: { [project]: { hasTrustDialogAccepted: true, allowedTools: [] } },
  };
  writeFileSync(join(home, '.claude.json'), `${JSON.stringify(config, null, 2)}\n`);
  const vars: Record<string, string> = {
    HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_AUTH_TOKEN: 'test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    // No git clone of the plugin marketplace at start-up (it fails offline and
    // then says so in the footer), no "switched to the native installer" notice.
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    DISABLE_INSTALLATION_CHECKS: '1',
    TERM: 'xterm-256color',
  };
  const { env, removed } = childEnv(vars, LEAKY);
  return { home, project, vars, env, removed, transcriptDir: join(home, '.claude', 'projects', projectKey(project)) };
}

/** How Claude Code names a project's folder under ~/.claude/projects (checked on 2.1.112: /tmp/x/my_app.v2 → -tmp-x-my-app-v2). */
export function projectKey(realProject: string): string {
  return realProject.replace(/[^a-zA-Z0-9]/g, '-');
}

/** The session transcripts (*.jsonl) written so far. */
export function transcripts(h: ClaudeHome): string[] {
  if (!existsSync(h.transcriptDir)) return [];
  return readdirSync(h.transcriptDir)
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => join(h.transcriptDir, n));
}
