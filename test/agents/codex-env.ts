/**
 * Runs the real Codex CLI offline: a fresh CODEX_HOME whose config.toml
 * points at a fake Responses API server (fake-openai.ts) through a custom
 * model provider, trusts the project folder, and turns off what would reach
 * out or ask first.
 *
 * The CLI itself is installed by scripts/agents/install-codex.sh into
 * ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/codex-0.171.0;
 * NIGHTSHIFT_CODEX_CLI may name another bin/codex.js.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-env.js';

export const CODEX_VERSION = '0.171.0';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CODEX_INSTALL_SCRIPT = join(ROOT, 'scripts', 'agents', 'install-codex.sh');

/** Where install-codex.sh puts the launcher (whether or not it is there). */
export function codexCliPath(): string {
  if (process.env.NIGHTSHIFT_CODEX_CLI) return process.env.NIGHTSHIFT_CODEX_CLI;
  const cache = process.env.NIGHTSHIFT_AGENT_CACHE || join(ROOT, '.cache', 'agents');
  return join(cache, `codex-${CODEX_VERSION}`, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
}

/** Why the CLI cannot run here, or undefined when it can. */
export function codexMissingReason(): string | undefined {
  const cli = codexCliPath();
  if (existsSync(cli)) return undefined;
  return `Codex CLI ${CODEX_VERSION} is not installed (no ${cli}); run scripts/agents/install-codex.sh (npm run agents:install:codex)`;
}

/** Skipped on a developer machine without the CLI; never in CI (CI set), where the tests run and fail with the reason. */
let warned = false;
export function skipCodexTests(): boolean {
  const reason = codexMissingReason();
  if (reason === undefined) return false;
  if (process.env.CI) return false;
  if (!warned) console.warn(`skipping Codex tests: ${reason}`);
  warned = true;
  return true;
}

/** Variables of the surrounding environment that would change what the CLI does. */
const LEAKY = /^(OPENAI_|CODEX_|AZURE_OPENAI|RUST_LOG$|HTTPS?_PROXY$|https?_proxy$|NO_PROXY$|no_proxy$|ALL_PROXY$|all_proxy$|SSL_CERT_FILE$)/;

/** The variable the fake provider reads its key from (the fake ignores it, Codex needs one). */
export const FAKE_KEY_VAR = 'NIGHTSHIFT_FAKE_OPENAI_KEY';

export interface CodexHome {
  /** The fresh HOME; CODEX_HOME is its .codex. */
  home: string;
  codexHome: string;
  /** realpath of the project: the key in config.toml and the cwd to run in. */
  project: string;
  /** The CLI's variables only. */
  vars: Record<string, string>;
  /** A whole environment for the child: this process's, minus leaky variables, plus `vars`. */
  env: Record<string, string>;
  /** Names removed from this process's environment (pass as undefined to helpers that merge). */
  removed: string[];
}

const tomlString = (s: string) => JSON.stringify(s);

/**
 * A fresh CODEX_HOME for one run against `baseUrl` (…/v1) in `projectDir`:
 * provider "fake" speaking the Responses API, the project trusted, no update
 * check, no analytics. `approval` and `sandbox` default to never asking and
 * no sandbox, so a scripted loop of commands runs without a dialog.
 */
export function prepareCodexHome(
  projectDir: string,
  baseUrl: string,
  o: { home?: string; approval?: 'never' | 'on-request' | 'untrusted'; sandbox?: 'danger-full-access' | 'workspace-write' | 'read-only' } = {},
): CodexHome {
  const project = realpathSync(projectDir);
  const home = o.home ?? mkdtempSync(join(tmpdir(), 'ns-codex-home-'));
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const config = [
    'model = "gpt-5.1-codex"',
    'model_provider = "fake"',
    `approval_policy = ${tomlString(o.approval ?? 'never')}`,
    `sandbox_mode = ${tomlString(o.sandbox ?? 'danger-full-access')}`,
    'check_for_update_on_startup = false',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = ${tomlString(baseUrl)}`,
    `env_key = ${tomlString(FAKE_KEY_VAR)}`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[projects.${tomlString(project)}]`,
    'trust_level = "trusted"',
    '',
  ].join('\n');
  writeFileSync(join(codexHome, 'config.toml'), config);
  const vars: Record<string, string> = {
    HOME: home,
    CODEX_HOME: codexHome,
    [FAKE_KEY_VAR]: 'test',
    TERM: 'xterm-256color',
  };
  const { env, removed } = childEnv(vars, LEAKY);
  return { home, codexHome, project, vars, env, removed };
}

/** The rollout transcripts ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) written so far. */
export function rollouts(h: CodexHome): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/^rollout-.*\.jsonl$/.test(n)) out.push(p);
    }
  };
  walk(join(h.codexHome, 'sessions'));
  return out.sort();
}
