/**
 * Records the judge fixture set (test/fixtures/judge/): each scenario of
 * judge-scenarios.ts is played by the REAL agent CLI, headless, offline
 * against its fake model server, in a fresh temporary project; the CLI runs
 * every tool call for real and writes its own transcript, which is copied to
 * test/fixtures/judge/<label>/<name>.<ext>. Nothing supervises the run (a
 * supervisor would interrupt the stuck ones before their stall is complete).
 *
 *   scripts/agents/record-judge-fixtures.sh [NAME…]
 *
 * Labels are not written here: labels.yaml is written by a person reading the run.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { claudeCliPath, prepareClaudeHome, transcripts, type ClaudeHome } from '../../test/agents/claude-env.js';
import { codexCliPath, prepareCodexHome, rollouts } from '../../test/agents/codex-env.js';
import { startFakeAnthropic } from '../../test/agents/fake-anthropic.js';
import { startFakeGemini } from '../../test/agents/fake-gemini.js';
import { startFakeOpenAI } from '../../test/agents/fake-openai.js';
import { geminiChats, geminiCliPath, prepareGeminiHome } from '../../test/agents/gemini-env.js';
import { SCENARIOS, type Scenario } from './judge-scenarios.js';

const OUT = process.env.NIGHTSHIFT_JUDGE_OUT ?? join(process.cwd(), 'test', 'fixtures', 'judge');
const TIMEOUT_MS = 180_000;

interface Ran {
  readonly transcript: string;
  readonly stdout: string;
}

/** Runs argv to its end (stdin closed), or kills it at the timeout; resolves with its stdout. */
function run(argv: string[], cwd: string, env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) process.stderr.write(`  exit ${code}: ${err.slice(-400)}\n`);
      resolve(out);
    });
  });
}

function project(s: Scenario): string {
  const dir = mkdtempSync(join(tmpdir(), `ns-judge-${s.name}-`));
  for (const [path, text] of Object.entries(s.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const noNpm = () => Object.fromEntries(Object.keys(process.env).filter((k) => /^npm_/i.test(k)).map((k) => [k, undefined]));

interface Home {
  readonly project: string;
  readonly env: Record<string, string>;
  readonly removed: string[];
}

/** One CLI's run: its fake server, its HOME, its headless argv and where its transcript lands. */
async function recordWith<H extends Home>(
  s: Scenario,
  server: { url: string; close(): Promise<void> },
  prepare: (url: string) => H,
  argv: string[],
  found: (h: H) => string[],
  extraEnv: Record<string, string> = {},
): Promise<Ran> {
  try {
    const h = prepare(server.url);
    const env = { ...h.env, ...noNpm(), ...Object.fromEntries(h.removed.map((k) => [k, undefined])), ...extraEnv };
    const stdout = await run([process.execPath, ...argv, s.prompt], h.project, env);
    return { transcript: only(found(h), s), stdout };
  } finally {
    await server.close();
  }
}

/** A Claude HOME in which bypassPermissions starts without its warning dialog (as claude-project.ts, which a compiled script cannot import: it pulls in the test helpers). */
function bypassHome(dir: string, url: string): ClaudeHome {
  const h = prepareClaudeHome(dir, url);
  mkdirSync(join(h.home, '.claude'), { recursive: true });
  writeFileSync(join(h.home, '.claude', 'settings.json'), `${JSON.stringify({ skipDangerousModePermissionPrompt: true })}\n`);
  return h;
}

async function recordOne(s: Scenario, dir: string): Promise<Ran> {
  const real = realpathSync(dir);
  switch (s.agent) {
    case 'claude':
      return recordWith(s, await startFakeAnthropic(s.script(real)), (url) => bypassHome(dir, url),
        [claudeCliPath(), '-p', '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json', '--verbose'], transcripts,
        // bypassPermissions as root needs it (claude-project.ts).
        { IS_SANDBOX: '1' });
    case 'codex':
      return recordWith(s, await startFakeOpenAI(s.script(real)), (url) => prepareCodexHome(dir, url), [codexCliPath(), 'exec', '--skip-git-repo-check'], rollouts);
    case 'gemini':
      return recordWith(s, await startFakeGemini(s.script(real)), (url) => prepareGeminiHome(dir, url), [geminiCliPath(), '--yolo', '-p'], geminiChats);
  }
}

function only(files: string[], s: Scenario): string {
  if (files.length !== 1) throw new Error(`${s.name}: expected one transcript, found ${files.length}`);
  return files[0]!;
}

const EXT = { claude: 'jsonl', codex: 'jsonl', gemini: 'jsonl' } as const;

async function record(s: Scenario): Promise<void> {
  const dir = project(s);
  const ran = await recordOne(s, dir);
  const folder = join(OUT, s.folder);
  mkdirSync(folder, { recursive: true });
  const target = join(folder, `${s.name}.${EXT[s.agent]}`);
  copyFileSync(ran.transcript, target);
  if (s.agent === 'claude' && s.streamJson) writeFileSync(join(folder, `${s.name}.stream.jsonl`), ran.stdout);
  const lines = readFileSync(target, 'utf8').split('\n').filter(Boolean).length;
  process.stderr.write(`recorded ${target} (${lines} lines)\n`);
}

const wanted = process.argv.slice(2);
for (const s of SCENARIOS) {
  if (wanted.length > 0 && !wanted.includes(s.name)) continue;
  process.stderr.write(`${s.name} (${s.agent})\n`);
  await record(s);
}
