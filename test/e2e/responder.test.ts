/**
 * The responder end to end: the built CLI (`nightshift run --policy FILE`)
 * supervising real programs in real PTYs — real npx against the public npm
 * registry, real `rm -i`, a shell that spoofs npx's prompt, and the real
 * Claude Code 2.1.112 offline against test/agents/fake-anthropic.ts — and
 * deciding by itself: answer an allow-listed install, escalate everything else
 * and send nothing. Policy files are reloaded live.
 *
 * Every test has its own state directory and npm cache; synchronisation is by
 * lines on nightshift's stderr (or files) with deadlines. The only waits
 * without an event are the windows in which nothing may happen ("no key is
 * sent for 3 s").
 *
 * Needs a build first (npx tsc -p tsconfig.json), network access to
 * registry.npmjs.org, and for the Claude tests the CLI from
 * `npm run agents:install` (skipped without it, failing in CI).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Cast, CastEvent } from '../../src/record/asciicast.js';
import { readCast } from '../../src/record/cast-reader.js';
import { claudeCommand, prepareClaudeHome, skipClaudeTests, transcripts, type ClaudeHome } from '../agents/claude-env.js';
import { contentBlocks, startFakeAnthropic, toolResults, toolResultText, type FakeAnthropic, type ScriptStep } from '../agents/fake-anthropic.js';
import { cleanup, readJsonl, startCli, tempDir, type CliProcess, type JsonLine } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const servers: FakeAnthropic[] = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** npx fetches package metadata before it asks; a 2-core CI machine running another file beside is slow. */
const NET = 30_000;
const SOON = 15_000;
/** Claude Code's start-up (~64 MB of JavaScript) plus a model turn. */
const START = 30_000;
/** How long "nothing is sent" is watched for after an escalation. */
const QUIET_WINDOW = 3_000;
const TEST_TIMEOUT = 60_000;

// ---------------------------------------------------------------- helpers

function tryJson(line: string): JsonLine | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonLine) : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON lines of stderr (a reload problem is a plain `nightshift: …` line among them). */
function json(p: CliProcess): JsonLine[] {
  return p.stderrLines.map(tryJson).filter((o): o is JsonLine => o !== undefined);
}

const actions = (p: CliProcess) => json(p).filter((o) => o.type === 'action');
const isAction = (kind: string) => (o: JsonLine) => o.type === 'action' && o.kind === kind;
const isState = (state: string, reason?: string) => (o: JsonLine) =>
  o.type === 'state' && o.state === state && (reason === undefined || o.reason === reason);

/** The job's folder, from the first --json line. */
function jobDir(p: CliProcess, stateDir: string): string {
  const job = json(p)[0];
  expect(job?.type).toBe('job');
  const dir = String(job!.dir);
  expect(dir).toBe(join(stateDir, 'jobs', String(job!.id)));
  return dir;
}

/**
 * Watches for `ms` that no stderr JSON line satisfies `pred` (something that
 * must NOT happen, e.g. a key sent after an escalation). Fails at once when
 * one shows up or the job ends meanwhile.
 */
async function noneWithin(p: CliProcess, pred: (o: JsonLine) => boolean, ms: number, what: string): Promise<void> {
  let hit: JsonLine;
  try {
    hit = await p.waitForJson(pred, ms, what);
  } catch (e) {
    if ((e as Error).message.startsWith(`no ${what} within`)) return;
    throw e;
  }
  throw new Error(`unexpected ${what}: ${JSON.stringify(hit)}`);
}

/** The recording so far (it is written event by event, so it parses mid-run). */
const recording = (dir: string) => readCast(join(dir, 'recording.cast'));
const inputs = (cast: Cast) => cast.events.filter((e) => e.code === 'i');
const outputAfter = (cast: Cast, index: number) =>
  cast.events
    .slice(index + 1)
    .filter((e) => e.code === 'o')
    .map((e) => e.data)
    .join('');

/** Wall-clock ms of a recording event: summary.json's `started` is the recording's time zero. */
function wallTime(dir: string, e: CastEvent): number {
  const started = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).started as string;
  return Date.parse(started) + Math.round(e.t * 1_000);
}

function evidence(dir: string): Record<string, any>[] {
  return readJsonl(join(dir, 'evidence.jsonl'));
}

/**
 * npm settings inherited from the test runner (`npx vitest` / `npm test` export
 * npm_config_yes, npm_config_userconfig, npm_config_cache, …) would override
 * the job's own: with this machine's `yes=false` npx would refuse without
 * asking. They are removed from nightshift's (and so the job's) environment.
 */
function withoutNpmEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const scrub = Object.fromEntries(Object.keys(process.env).filter((k) => /^npm_/i.test(k)).map((k) => [k, undefined]));
  return { ...scrub, ...env };
}

/** An empty npm userconfig (the machine's ~/.npmrc says yes=false) and a fresh cache, so npx asks. */
function npmSandbox(): { userconfig: string; cache: () => string } {
  const dir = tempDir('ns-e2e-npm-');
  const userconfig = join(dir, 'empty-npmrc');
  writeFileSync(userconfig, '');
  let n = 0;
  return {
    userconfig,
    cache: () => {
      const c = join(dir, `cache-${++n}`);
      mkdirSync(c);
      return c;
    },
  };
}

/**
 * `env … npx PKG ARGS`: the command line of a job that makes real npx ask to
 * install PKG. `-u CI`: under CI=true (as CI runs this suite) npx installs
 * without asking, so the variable is kept from the job.
 */
function npx(sandbox: ReturnType<typeof npmSandbox>, ...cmd: string[]): string[] {
  return [
    'env', '-u', 'CI', `npm_config_userconfig=${sandbox.userconfig}`, `npm_config_cache=${sandbox.cache()}`,
    'npm_config_update_notifier=false', 'npm_config_fund=false', 'npm_config_audit=false',
    'npx', ...cmd,
  ];
}

function writePolicy(file: string, allow: string[], extra = ''): void {
  writeFileSync(
    file,
    [
      'policy: 1',
      'description: written by test/e2e/responder.test.ts',
      'allow:',
      ...allow.map((a) => `  - ${a}`),
      'registries:',
      '  npm: ["https://registry.npmjs.org/"]',
      extra,
    ].join('\n'),
  );
}

const ALLOW_COWSAY = '{ ecosystem: npm, name: cowsay, version: "^1.6.0" }';
const ALLOW_FIGLET = '{ ecosystem: npm, name: figlet, version: "^1.7.0" }';

function runJob(state: string, cwd: string, policy: string, cmd: string[], extraEnv: Record<string, string | undefined> = {}): CliProcess {
  return startCli(
    ['run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30', '--timeout', '90s',
      '--cwd', cwd, '--policy', policy, '--', ...cmd],
    { cwd, env: withoutNpmEnv(extraEnv) },
  );
}

// ---------------------------------------------------------------- npx

describe('responder: real npx', () => {
  it('allow-listed cowsay@1.6.0: nightshift answers y+Enter by itself, once; evidence first, then the keys, then cowsay runs', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-work-');
    const policy = join(work, 'policy.yaml');
    writePolicy(policy, [ALLOW_COWSAY]);
    const p = runJob(state, work, policy, npx(npmSandbox(), 'cowsay@1.6.0', 'moo'));

    const answer = await p.waitForJson((o) => o.type === 'action', NET, 'an action');
    expect(answer).toMatchObject({
      kind: 'answer', rule: 'npx-install', class: 'dependency', reason: 'prompt', layer: 'act', keys: ['y', 'enter'],
    });
    expect(answer.packages).toContainEqual({ ecosystem: 'npm', name: 'cowsay', version: '1.6.0', source: null });
    expect(String(answer.prompt)).toMatch(/^Need to install the following packages:\ncowsay@1\.6\.0\nOk to proceed\? \(y\)$/);
    expect(Date.parse(String(answer.time)) - Date.parse(String(answer.since))).toBeGreaterThanOrEqual(990);

    const exit = await p.waitExit(NET);
    expect(exit, p.stderr).toEqual({ code: 0, signal: null });
    expect(actions(p)).toHaveLength(1);
    expect(json(p).filter((o) => o.type === 'state').map((o) => `${o.state}/${o.reason}`)).toEqual([
      'running/started', 'blocked/prompt', 'running/prompt-cleared', 'done/exit',
    ]);

    const dir = jobDir(p, state);
    const cast = await recording(dir);
    const ins = inputs(cast);
    expect(ins.map((e) => e.data)).toEqual(['y\r']);
    const inputAt = cast.events.indexOf(ins[0]!);
    const promptAt = cast.events.findIndex((e) => e.code === 'o' && e.data.includes('Ok to proceed? (y)'));
    expect(promptAt).toBeGreaterThanOrEqual(0);
    expect(promptAt).toBeLessThan(inputAt);
    // The marker says who typed: the rule, right before its keys.
    expect(cast.events[inputAt - 1]).toMatchObject({ code: 'm', data: 'answer:npx-install' });
    expect(cast.events.filter((e) => e.code === 'm' && e.data.startsWith('answer:'))).toHaveLength(1);
    // Nothing of cowsay before the answer; its speech bubble after it.
    const before = cast.events.slice(0, inputAt).filter((e) => e.code === 'o').map((e) => e.data).join('');
    expect(before).not.toContain('< moo >');
    const after = outputAfter(cast, inputAt);
    expect(after).toMatch(/ _____\r\n< moo >\r\n -----\r\n/);
    expect(after).toContain('(oo)');
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:0' });

    const ev = evidence(dir);
    expect(ev.map((r) => r.type)).toEqual(['prompt', 'outcome']);
    const rec = ev[0]!;
    expect(rec).toMatchObject({
      type: 'prompt', episode: 1, rule: 'npx-install', class: 'dependency', reason: 'prompt',
      decision: 'answer', layer: 'act', answered_by: 'rule:npx-install', keys: ['y', 'enter'], time: answer.time,
    });
    expect(rec.packages).toContainEqual({ ecosystem: 'npm', name: 'cowsay', version: '1.6.0', source: null });
    expect(rec.screen).toEqual(expect.arrayContaining(['Need to install the following packages:', 'cowsay@1.6.0', 'Ok to proceed? (y)']));
    // Written before the keys: not later than the answer marker, nor than anything the job printed after it.
    const firstOutputAfter = cast.events.slice(inputAt + 1).find((e) => e.code === 'o')!;
    expect(Date.parse(rec.time)).toBeLessThanOrEqual(wallTime(dir, cast.events[inputAt - 1]!));
    expect(Date.parse(rec.time)).toBeLessThanOrEqual(wallTime(dir, firstOutputAfter));
    expect(ev[1]).toMatchObject({ type: 'outcome', episode: 1, followed: 'prompt-cleared' });
  }, TEST_TIMEOUT);

  it('figlet@1.7.0 is not on the allow-list: escalated by the policy layer, no key sent until the person says n', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-work-');
    const policy = join(work, 'policy.yaml');
    writePolicy(policy, [ALLOW_COWSAY]);
    const p = runJob(state, work, policy, npx(npmSandbox(), 'figlet@1.7.0', 'hi'));

    const action = await p.waitForJson((o) => o.type === 'action', NET, 'an action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'npx-install', class: 'dependency', reason: 'prompt', layer: 'policy' });
    expect(String(action.why)).toContain('npm:figlet@1.7.0 is not on the allow-list');
    expect(action.keys).toBeUndefined();
    const dir = jobDir(p, state);
    // The job waits for a person: no key in the recording, and none comes.
    await noneWithin(p, isAction('answer'), QUIET_WINDOW, 'answer action');
    expect(inputs(await recording(dir))).toEqual([]);
    expect(p.exited).toBeUndefined();

    p.write('n\r');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    const exit = await p.waitExit(SOON);
    expect(exit.code).toBe(1); // npx: "canceled"
    expect(actions(p).map((a) => a.kind)).toEqual(['escalate']);

    const cast = await recording(dir);
    expect(inputs(cast).map((e) => e.data)).toEqual(['n\r']);
    expect(cast.events.some((e) => e.code === 'm' && e.data.startsWith('answer:'))).toBe(false);
    expect(wallTime(dir, inputs(cast)[0]!)).toBeGreaterThanOrEqual(Date.parse(String(action.time)) + QUIET_WINDOW - 50);
    const ev = evidence(dir);
    expect(ev[0]).toMatchObject({ type: 'prompt', decision: 'escalate', layer: 'policy', answered_by: null, keys: [] });
    expect(ev[0]!.packages).toContainEqual({ ecosystem: 'npm', name: 'figlet', version: '1.7.0', source: null });
    expect(ev[1]).toMatchObject({ type: 'outcome', followed: 'prompt-cleared' });
  }, TEST_TIMEOUT);
});

// ---------------------------------------------------------------- rm -i, spoofing

describe('responder: never answers', () => {
  it('rm -i with a policy that allows everything imaginable: destructive, escalated, nothing sent, the file survives', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-rm-');
    const file = join(work, 'precious.txt');
    writeFileSync(file, 'keep me\n');
    const policy = join(work, 'policy.yaml');
    const names = ['rm', 'coreutils', 'precious', 'precious.txt', 'rimraf', 'del', 'trash', 'y', 'yes'];
    const ecosystems = ['npm', 'pip', 'apt', 'cargo', 'gem', 'go'];
    writePolicy(
      policy,
      ecosystems.flatMap((eco) => names.map((n) => `{ ecosystem: ${eco}, name: "${n}" }`)),
      '  pip: ["https://pypi.org/simple/"]\n  apt: [system]\n  cargo: ["https://crates.io/"]\n',
    );
    const p = runJob(state, work, policy, ['rm', '-i', file]);

    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'an action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'rm-interactive', class: 'destructive', reason: 'prompt' });
    expect(['risk', 'policy']).toContain(action.layer);
    expect(String(action.prompt)).toBe(`rm: remove regular file '${file}'?`);
    const dir = jobDir(p, state);
    await noneWithin(p, isAction('answer'), QUIET_WINDOW, 'answer action');
    expect(inputs(await recording(dir))).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');

    p.write('n\r');
    const exit = await p.waitExit(SOON);
    expect(exit.code, p.story()).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(actions(p).map((a) => a.kind)).toEqual(['escalate']);
    expect(inputs(await recording(dir)).map((e) => e.data)).toEqual(['n\r']);
    expect(evidence(dir)[0]).toMatchObject({ decision: 'escalate', class: 'destructive', answered_by: null, keys: [] });
  }, TEST_TIMEOUT);

  it('a shell printing npx\'s exact prompt (cowsay allow-listed) is a spoof: escalated by the guard, nothing sent', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-spoof-');
    const policy = join(work, 'policy.yaml');
    writePolicy(policy, [ALLOW_COWSAY]);
    const script = join(work, 'spoof.sh');
    writeFileSync(
      script,
      [
        `printf 'Need to install the following packages:\\ncowsay@1.6.0\\nOk to proceed? (y) '`,
        'read -r ans',
        'echo "spoof got: $ans"',
        '',
      ].join('\n'),
    );
    const p = runJob(state, work, policy, ['bash', script]);

    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'an action');
    // The prompt text is npx's to the letter and cowsay is allowed: only the guard can tell.
    expect(action).toMatchObject({ kind: 'escalate', rule: 'npx-install', class: 'dependency', reason: 'prompt', layer: 'guard' });
    expect(action.prompt).toBe('Need to install the following packages:\ncowsay@1.6.0\nOk to proceed? (y)');
    expect(String(action.why)).toMatch(/foreground program is bash/);
    const dir = jobDir(p, state);
    await noneWithin(p, isAction('answer'), QUIET_WINDOW, 'answer action');
    const during = await recording(dir);
    expect(inputs(during)).toEqual([]);
    expect(during.events.some((e) => e.code === 'm' && e.data.startsWith('answer:'))).toBe(false);
    expect(p.exited).toBeUndefined();

    p.write('n\r');
    const exit = await p.waitExit(SOON);
    expect(exit).toEqual({ code: 0, signal: null });
    const cast = await recording(dir);
    expect(inputs(cast).map((e) => e.data)).toEqual(['n\r']);
    expect(outputAfter(cast, -1)).toContain('spoof got: n');
    expect(outputAfter(cast, -1)).not.toContain('spoof got: y');
    expect(actions(p).map((a) => a.kind)).toEqual(['escalate']);
    expect(evidence(dir)[0]).toMatchObject({ decision: 'escalate', layer: 'guard', answered_by: null, keys: [] });
  }, TEST_TIMEOUT);
});

// ---------------------------------------------------------------- policy reload

/**
 * Two real npx installs in one job: cowsay, then figlet, each with its own
 * fresh cache. With `go`, figlet waits until the test touches that file;
 * with `clear`, the screen is cleared in between, so the second prompt is
 * alone on it.
 */
function twoInstalls(work: string, policy: string, o: { go?: string; clear?: boolean }) {
  const sandbox = npmSandbox();
  const script = join(work, 'two.sh');
  const [first, second] = [npx(sandbox, 'cowsay@1.6.0', 'first'), npx(sandbox, 'figlet@1.7.0', 'b')];
  const q = (args: string[]) => args.map((a) => `'${a}'`).join(' ');
  writeFileSync(
    script,
    [
      q(first),
      ...(o.go ? [`until [ -e '${o.go}' ]; do sleep 0.1; done`] : []),
      ...(o.clear ? [`printf '\\033[H\\033[2J'`] : []),
      q(second),
      '',
    ].join('\n'),
  );
  const state = tempDir();
  const p = runJob(state, work, policy, ['bash', script]);
  return { p, state };
}

const hasPackage = (o: JsonLine, name: string) => Array.isArray(o.packages) && o.packages.some((x: any) => x?.name === name);

describe('responder: a second prompt is judged on its own', () => {
  it('npx figlet right under an answered npx cowsay (same screen): figlet is not allowed, so it is escalated, not answered', async () => {
    const work = tempDir('ns-e2e-two-');
    const policy = join(work, 'policy.yaml');
    writePolicy(policy, [ALLOW_COWSAY]);
    const { p, state } = twoInstalls(work, policy, {});

    const first = await p.waitForJson(isAction('answer'), NET, 'the cowsay answer');
    expect(first.packages).toEqual([{ ecosystem: 'npm', name: 'cowsay', version: '1.6.0', source: null }]);
    await p.waitForLine(() => actions(p).length >= 2, NET, 'a second action');
    const second = actions(p)[1]!;
    // The earlier, answered prompt is still on screen above this one; its package list must not stand in for figlet's.
    expect(second.packages).toEqual([{ ecosystem: 'npm', name: 'figlet', version: '1.7.0', source: null }]);
    expect(second).toMatchObject({ kind: 'escalate', rule: 'npx-install', class: 'dependency', layer: 'policy' });
    expect(String(second.prompt)).toBe('Need to install the following packages:\nfiglet@1.7.0\nOk to proceed? (y)');
    const dir = jobDir(p, state);
    expect(inputs(await recording(dir)).map((e) => e.data)).toEqual(['y\r']);
    p.write('n\r');
    const exit = await p.waitExit(SOON);
    expect(exit.code).toBe(1);
    expect(actions(p).map((a) => a.kind)).toEqual(['answer', 'escalate']);
  }, TEST_TIMEOUT);
});

describe('responder: the policy file is reloaded live', () => {
  const reloadedInLog = (dir: string) => readJsonl(join(dir, 'log.jsonl')).some((r) => r.msg === 'rules and policy reloaded');

  it('figlet added to the policy while the job runs: its later prompt is answered too', async () => {
    const work = tempDir('ns-e2e-reload-');
    const policy = join(work, 'policy.yaml');
    writePolicy(policy, [ALLOW_COWSAY]);
    const go = join(work, 'GO');
    const { p, state } = twoInstalls(work, policy, { go, clear: true });

    const first = await p.waitForJson(isAction('answer'), NET, 'the cowsay answer');
    expect(first.packages).toContainEqual(expect.objectContaining({ name: 'cowsay', version: '1.6.0' }));
    const dir = jobDir(p, state);
    writePolicy(policy, [ALLOW_COWSAY, ALLOW_FIGLET]);
    await until(() => reloadedInLog(dir), SOON, 'the reload in log.jsonl');
    writeFileSync(go, '');

    const second = await p.waitForJson((o) => o.type === 'action' && hasPackage(o, 'figlet'), NET, 'the figlet action');
    expect(second).toMatchObject({ kind: 'answer', rule: 'npx-install', class: 'dependency', layer: 'act', keys: ['y', 'enter'] });
    const exit = await p.waitExit(NET);
    expect(exit, p.stderr).toEqual({ code: 0, signal: null });
    expect(actions(p).map((a) => a.kind)).toEqual(['answer', 'answer']);
    expect(p.stderrLines.filter((l) => l.includes('rules not reloaded'))).toEqual([]);

    const cast = await recording(dir);
    expect(inputs(cast).map((e) => e.data)).toEqual(['y\r', 'y\r']);
    const secondInput = cast.events.indexOf(inputs(cast)[1]!);
    expect(outputAfter(cast, -1)).toContain('< first >');
    expect(outputAfter(cast, secondInput)).toContain('|_.__/'); // figlet's "b"
    const prompts = evidence(dir).filter((r) => r.type === 'prompt');
    expect(prompts.map((r) => [r.decision, r.answered_by])).toEqual([
      ['answer', 'rule:npx-install'],
      ['answer', 'rule:npx-install'],
    ]);
    expect(prompts[1]!.packages).toContainEqual({ ecosystem: 'npm', name: 'figlet', version: '1.7.0', source: null });
  }, TEST_TIMEOUT);

  it('a broken policy edit is refused with one file:line line; the last good policy stays, so figlet is escalated', async () => {
    const work = tempDir('ns-e2e-reload-');
    const policy = join(work, 'policy.yaml');
    writePolicy(policy, [ALLOW_COWSAY]);
    const go = join(work, 'GO');
    const { p, state } = twoInstalls(work, policy, { go, clear: true });

    await p.waitForJson(isAction('answer'), NET, 'the cowsay answer');
    const dir = jobDir(p, state);
    // Would allow figlet, but `colour` is no key of a policy file: refused whole.
    writePolicy(policy, [ALLOW_COWSAY, ALLOW_FIGLET], 'colour: red\n');
    const badLine = readFileSync(policy, 'utf8').split('\n').findIndex((l) => l.startsWith('colour:')) + 1;
    // --json: the problem is a JSON line too
    const problem = await p.waitForJson((o) => o.type === 'problem', SOON, 'the reload problem');
    expect(String(problem.message)).toMatch(new RegExp(`^rules not reloaded \\(keeping the last good ones\\): ${escapeRe(policy)}:${badLine}: .*colour`));
    writeFileSync(go, '');

    const second = await p.waitForJson((o) => o.type === 'action' && hasPackage(o, 'figlet'), NET, 'the figlet action');
    expect(second).toMatchObject({ kind: 'escalate', rule: 'npx-install', class: 'dependency', layer: 'policy' });
    expect(String(second.why)).toContain('not on the allow-list');
    await noneWithin(p, (o) => isAction('answer')(o) && hasPackage(o, 'figlet'), 1_000, 'figlet answer');
    p.write('n\r');
    const exit = await p.waitExit(SOON);
    expect(exit.code).toBe(1); // the script's last command: npx canceled
    expect(actions(p).map((a) => a.kind)).toEqual(['answer', 'escalate']);
    expect(p.stderrLines.filter((l) => l.includes('rules not reloaded'))).toHaveLength(1);
    expect(p.stderrLines.filter((l) => tryJson(l) === undefined && l !== '')).toEqual([]);
    expect(inputs(await recording(dir)).map((e) => e.data)).toEqual(['y\r', 'n\r']);
    expect(reloadedInLog(dir)).toBe(false);
  }, TEST_TIMEOUT);
});

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---------------------------------------------------------------- real Claude Code

async function fake(script: ScriptStep[]): Promise<FakeAnthropic> {
  const f = await startFakeAnthropic(script);
  servers.push(f);
  return f;
}

function transcriptRecords(h: ClaudeHome): Record<string, any>[] {
  return transcripts(h).flatMap((f) => readJsonl(f));
}

const transcriptBlocks = (h: ClaudeHome, role: 'user' | 'assistant', type: string) =>
  transcriptRecords(h)
    .filter((r) => r.type === role)
    .flatMap((r) => contentBlocks(r.message))
    .filter((b) => b?.type === type);

/**
 * nightshift running Claude Code with a policy. Claude's environment (fresh
 * HOME, fake model server) plus npm settings of its own, so the `npm install`
 * its Bash tool runs uses an empty userconfig and a temporary cache.
 */
function runClaude(h: ClaudeHome, state: string, policy: string, prompt: string): CliProcess {
  const npm = npmSandbox();
  const env: Record<string, string | undefined> = {
    ...withoutNpmEnv(Object.fromEntries(Object.entries(h.env).filter(([k]) => !/^npm_/i.test(k)))),
    ...Object.fromEntries(h.removed.map((k) => [k, undefined])),
    npm_config_userconfig: npm.userconfig,
    npm_config_cache: npm.cache(),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  return startCli(
    [
      'run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30', '--policy', policy,
      '--name', 'claude', '--cwd', h.project, '--timeout', '90s', '--', ...claudeCommand(), prompt,
    ],
    { cwd: h.project, env },
  );
}

/** Ctrl-C twice leaves Claude Code; it is repeated until the job ends. */
async function quit(p: CliProcess): Promise<void> {
  await until(() => {
    if (p.exited) return true;
    p.write('\x03');
    return false;
  }, SOON, 'exit after ctrl-c', 400);
  await p.waitExit(SOON);
}

describe.skipIf(skipClaudeTests())('responder: real Claude Code 2.1.112 offline', () => {
  function claudePolicy(): string {
    const policy = join(tempDir('ns-e2e-policy-'), 'policy.yaml');
    writePolicy(policy, ['{ ecosystem: npm, name: left-pad }']);
    return policy;
  }

  it('npm install left-pad, allow-listed: nightshift picks "1. Yes" by itself; the tool runs, left-pad is installed', async () => {
    const server = await fake([{ tool: 'Bash', command: 'npm install left-pad' }, { text: 'Installed.' }]);
    const h = prepareClaudeHome(tempDir('ns-claude-proj-'), server.url, { home: tempDir('ns-claude-home-') });
    const state = tempDir();
    const p = runClaude(h, state, claudePolicy(), 'please install left-pad');

    const action = await p.waitForJson((o) => o.type === 'action', START, 'an action');
    expect(action).toMatchObject({
      kind: 'answer', rule: 'claude-code-permission', class: 'dependency', reason: 'prompt', layer: 'act', keys: ['1'],
      command: 'npm install left-pad',
    });
    expect(action.packages).toContainEqual(expect.objectContaining({ ecosystem: 'npm', name: 'left-pad' }));
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');

    const results = await until(() => (server.turns >= 2 ? toolResults(server.requests) : undefined), NET, 'the tool_result at the model');
    expect(results).toHaveLength(1);
    expect(results[0].is_error, toolResultText(results[0])).not.toBe(true);
    expect(existsSync(join(h.project, 'node_modules', 'left-pad', 'package.json'))).toBe(true);
    const toolUse = transcriptBlocks(h, 'assistant', 'tool_use').find((b) => b.input?.command === 'npm install left-pad');
    expect(toolUse).toBeDefined();
    const ran = await until(() => transcriptBlocks(h, 'user', 'tool_result').find((b) => b.tool_use_id === toolUse.id), SOON, 'the tool_result in the transcript');
    expect(ran.is_error).not.toBe(true);
    expect(ran.tool_use_id).toBe(results[0].tool_use_id);

    const dir = jobDir(p, state);
    const cast = await recording(dir);
    expect(inputs(cast).map((e) => e.data)).toEqual(['1']);
    const inputAt = cast.events.indexOf(inputs(cast)[0]!);
    expect(cast.events[inputAt - 1]).toMatchObject({ code: 'm', data: 'answer:claude-code-permission' });
    const rec = evidence(dir).find((r) => r.type === 'prompt')!;
    expect(rec).toMatchObject({
      decision: 'answer', layer: 'act', answered_by: 'rule:claude-code-permission', keys: ['1'], class: 'dependency',
      command: 'npm install left-pad',
    });
    expect(Date.parse(rec.time)).toBeLessThanOrEqual(wallTime(dir, cast.events[inputAt]!));

    await quit(p);
    expect(actions(p).filter((a) => a.kind === 'answer')).toHaveLength(1);
    expect(inputs(await recording(dir)).filter((e) => e.data === '1')).toHaveLength(1);
  }, TEST_TIMEOUT);

  it('rm -rf build with the same policy: destructive by the risk layer, nothing sent; the person presses Escape; build/ survives', async () => {
    const server = await fake([{ tool: 'Bash', command: 'rm -rf build', description: 'Remove the build folder' }, { text: 'Removed build/.' }]);
    const project = tempDir('ns-claude-proj-');
    mkdirSync(join(project, 'build'));
    writeFileSync(join(project, 'build', 'keep.txt'), 'precious\n');
    const h = prepareClaudeHome(project, server.url, { home: tempDir('ns-claude-home-') });
    const state = tempDir();
    const p = runClaude(h, state, claudePolicy(), 'please remove the build folder');

    const action = await p.waitForJson((o) => o.type === 'action', START, 'an action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'claude-code-permission', class: 'destructive', reason: 'prompt', layer: 'risk' });
    expect(action.command).toBe('rm -rf build');
    const dir = jobDir(p, state);
    await noneWithin(p, isAction('answer'), QUIET_WINDOW, 'answer action');
    expect(inputs(await recording(dir))).toEqual([]);
    expect(readFileSync(join(h.project, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(server.turns).toBe(1);

    p.write('\x1b');
    await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    await quit(p);
    expect(readFileSync(join(h.project, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(actions(p).map((a) => a.kind)).toEqual(['escalate']);
    const ins = inputs(await recording(dir));
    expect(ins[0]!.data).toBe('\x1b');
    expect(ins.every((e) => e.data === '\x1b' || e.data === '\x03')).toBe(true);
    expect(evidence(dir)[0]).toMatchObject({ decision: 'escalate', layer: 'risk', class: 'destructive', answered_by: null, keys: [] });
    expect(toolResults(server.requests).filter((b) => b.is_error !== true)).toEqual([]);
  }, TEST_TIMEOUT);
});
