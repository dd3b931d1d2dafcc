/**
 * Runs the real Gemini CLI offline: a fresh HOME whose ~/.gemini/settings.json
 * selects API-key auth and turns off what would reach out (usage statistics,
 * telemetry, update checks), a trustedFolders.json that trusts the project,
 * and an environment that points the CLI at a fake Gemini API (fake-gemini.ts).
 *
 * The setting keys are the 0.61 bundle's (security.auth.selectedType,
 * security.folderTrust.enabled, privacy.usageStatisticsEnabled,
 * general.enableAutoUpdate …); unknown keys would only be ignored, but a
 * missing auth type makes the CLI show its auth picker instead of the prompt.
 *
 * The CLI itself is installed by scripts/agents/install-gemini.sh into
 * ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/gemini-0.61.0;
 * NIGHTSHIFT_GEMINI_CLI may name another bundle/gemini.js.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-env.js';

export const GEMINI_VERSION = '0.61.0';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where install-gemini.sh puts the bundle (whether or not it is there). */
export function geminiCliPath(): string {
  if (process.env.NIGHTSHIFT_GEMINI_CLI) return process.env.NIGHTSHIFT_GEMINI_CLI;
  const cache = process.env.NIGHTSHIFT_AGENT_CACHE || join(ROOT, '.cache', 'agents');
  return join(cache, `gemini-${GEMINI_VERSION}`, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
}

/** Why the CLI cannot run here, or undefined when it can. */
export function geminiMissingReason(): string | undefined {
  const cli = geminiCliPath();
  if (existsSync(cli)) return undefined;
  return `Gemini CLI ${GEMINI_VERSION} is not installed (no ${cli}); run scripts/agents/install-gemini.sh (npm run agents:install)`;
}

/** Skipped on a developer machine without the CLI; never in CI (CI set), where the tests run and fail with the reason. */
let warned = false;
export function skipGeminiTests(): boolean {
  const reason = geminiMissingReason();
  if (reason === undefined) return false;
  if (process.env.CI) return false;
  if (!warned) console.warn(`skipping Gemini CLI tests: ${reason}`);
  warned = true;
  return true;
}

/** argv of the CLI (default approval mode: it asks before every shell command). Throws when it is not installed. */
export function geminiCommand(): [string, ...string[]] {
  const reason = geminiMissingReason();
  if (reason !== undefined) throw new Error(reason);
  return [process.execPath, geminiCliPath()];
}

/** Variables of the surrounding environment that would change what the CLI does (a key, a project, a sandbox, a proxy). */
const LEAKY = /^(GEMINI_|GOOGLE_|VERTEX|CLOUDSDK_|GCLOUD_|OTEL_|NODE_OPTIONS$|DEBUG$|DEBUG_MODE$|SANDBOX$|SEATBELT_PROFILE$|XDG_CONFIG_HOME$|HTTPS?_PROXY$|https?_proxy$|NO_PROXY$|no_proxy$|CI$|GITHUB_ACTIONS$)/;

export interface GeminiHome {
  /** The fresh HOME (contains .gemini/). */
  home: string;
  /** realpath of the project: the key in trustedFolders.json and the cwd to run in. */
  project: string;
  /** The CLI's variables only. */
  vars: Record<string, string>;
  /** A whole environment for the child: this process's, minus leaky variables, plus `vars`. */
  env: Record<string, string>;
  /** Names removed from this process's environment (pass as undefined to helpers that merge). */
  removed: string[];
}

/**
 * A fresh HOME for one run of the CLI against `baseUrl` in `projectDir`.
 * `trust: false` leaves the folder out of trustedFolders.json (the CLI then
 * asks whether to trust it first).
 */
export function prepareGeminiHome(projectDir: string, baseUrl: string, o: { home?: string; trust?: boolean } = {}): GeminiHome {
  const project = realpathSync(projectDir);
  const home = o.home ?? mkdtempSync(join(tmpdir(), 'ns-gemini-home-'));
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: true } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  writeFileSync(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  const trusted = o.trust === false ? {} : { [project]: 'TRUST_FOLDER' };
  writeFileSync(join(dir, 'trustedFolders.json'), `${JSON.stringify(trusted, null, 2)}\n`);
  const vars: Record<string, string> = {
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_API_KEY: 'test',
    TERM: 'xterm-256color',
  };
  // CI=true or GITHUB_ACTIONS=true make the CLI headless (0.61's
  // isHeadlessMode: no dialog ever), so the test runner's CI must not reach it.
  const { env, removed } = childEnv(vars, LEAKY);
  return { home, project, vars, env, removed };
}

/** The chat transcripts (~/.gemini/tmp/<project hash or name>/chats/session-*.json[l]) written so far. */
export function geminiChats(h: GeminiHome): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4 || !existsSync(dir)) return;
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p, depth + 1);
      else if (/^session-.*\.jsonl?$/.test(n) && dir.endsWith('chats')) out.push(p);
    }
  };
  walk(join(h.home, '.gemini', 'tmp'), 0);
  return out.sort();
}
