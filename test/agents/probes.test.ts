/**
 * Trajectory probes end to end with the REAL Claude Code 2.1.112 (installed
 * by scripts/agents/install-claude.sh) offline against fake-anthropic.ts,
 * each job under
 *
 *   nightshift run --json --quiet --state <tmp> --settle 1s --cols 100 --rows 30 --timeout 90s --agent claude \
 *     -- node cli.js --permission-mode bypassPermissions "<task>"
 *
 * The fake model plays a script of turns; Claude runs the tools for real,
 * writes its real transcript, and nightshift follows it: loops are escalated,
 * an announce-then-stop is nudged with "continue" (which the fake server then
 * receives as a new user message), a claim with no write is refused, two jobs
 * in one folder keep their own transcripts, and a finished turn ends the job.
 *
 * Bash must run without a permission dialog, or every loop would stop at the
 * first changing command: Claude starts in bypassPermissions mode. On 2.1.112
 * that needs (a) `skipDangerousModePermissionPrompt: true` in
 * ~/.claude/settings.json, else a one-time "WARNING: Claude Code running in
 * Bypass Permissions mode … 1. No, exit / 2. Yes, I accept" dialog waits, and
 * (b) IS_SANDBOX=1 when running as root, else the CLI exits with
 * "--dangerously-skip-permissions cannot be used with root/sudo privileges".
 *
 * Skipped on a machine without the CLI; fails in CI (CI set) without it.
 * Needs a build first (npx tsc -p tsconfig.json): bin/nightshift.js runs dist/.
 * Synchronisation by polling with deadlines, never fixed sleeps.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCast } from '../../src/record/cast-reader.js';
import { cleanup, readJsonl, startCli, tempDir, type CliProcess, type Exit, type JsonLine } from '../helpers/cli.js';
import { skipClaudeTests, transcripts, type ClaudeHome } from './claude-env.js';
import { codexCliPath, codexMissingReason, prepareCodexHome, rollouts, skipCodexTests, type CodexHome } from './codex-env.js';
import { contentBlocks, lastUserText as lastUserTextOf, startFakeAnthropic, type FakeAnthropic, type RecordedRequest, type ScriptStep } from './fake-anthropic.js';
import { functionOutputs, isMainResponsesRequest, lastUserInput, startFakeOpenAI, type FakeOpenAI, type ResponsesStep } from './fake-openai.js';
import { until } from '../helpers/until.js';
import { bash, claudeArgv, claudeHome, jobEnv, project } from './claude-project.js';

/** Start-up of the CLI (~64 MB of JavaScript) is 1.5–3 s here; a 2-core CI machine running another test file beside is slower. */
const START = 30_000;
/** From start to the end of a short scripted job (the turn, then 3 s idle at the input box). */
const FINISH = 45_000;
/** From an escalation to the next sign of it (the blocked state, the interrupted turn). */
const SOON = 15_000;
const TEST_TIMEOUT = 60_000;

const servers: Array<FakeAnthropic | FakeOpenAI> = [];
afterEach(async () => {
  await cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(script: ScriptStep[]): Promise<FakeAnthropic> {
  const f = await startFakeAnthropic(script);
  servers.push(f);
  return f;
}

async function fakeOpenAI(script: ResponsesStep[]): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI(script);
  servers.push(f);
  return f;
}

// ---------------------------------------------------------------- set-up

/** One supervised Claude job; stdin is closed (nobody at the terminal). */
function runClaude(h: ClaudeHome, state: string, task: string, o: { timeout?: string; name?: string } = {}): CliProcess {
  const p = startCli(
    [
      'run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30',
      '--timeout', o.timeout ?? '90s', '--agent', 'claude', '--name', o.name ?? 'claude', '--cwd', h.project,
      '--', ...claudeArgv(), task,
    ],
    { cwd: h.project, env: jobEnv(h) },
  );
  p.child.stdin!.end();
  return p;
}

/**
 * One supervised Codex job (`--no-daemon`: no background app-server left
 * behind); stdin is closed. The CLI's config.toml (codex-env.ts) says: the
 * fake provider, approval never, no sandbox, the project trusted.
 */
function runCodex(h: CodexHome, state: string, task: string): CliProcess {
  const missing = codexMissingReason();
  if (missing !== undefined) throw new Error(missing);
  const scrub = Object.fromEntries(Object.keys(process.env).filter((k) => /^npm_/i.test(k)).map((k) => [k, undefined]));
  const p = startCli(
    [
      'run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30',
      '--timeout', '90s', '--agent', 'codex', '--name', 'codex', '--cwd', h.project,
      '--', process.execPath, codexCliPath(), '--no-daemon', task,
    ],
    { cwd: h.project, env: { ...h.env, ...scrub, ...Object.fromEntries(h.removed.map((k) => [k, undefined])) } },
  );
  p.child.stdin!.end();
  return p;
}

const execCommand = (cmd: string): ResponsesStep => ({ tool: 'exec_command', args: { cmd } });

// ---------------------------------------------------------------- reading what happened

const isAction = (kind: string, reason?: string | RegExp) => (o: JsonLine) =>
  o.type === 'action' &&
  o.kind === kind &&
  (reason === undefined || (typeof reason === 'string' ? o.reason === reason : reason.test(String(o.reason))));

function actions(p: CliProcess): JsonLine[] {
  return p.jsonLines().filter((o) => o.type === 'action');
}

function jobDir(p: CliProcess): string {
  const job = p.jsonLines()[0];
  expect(job?.type).toBe('job');
  return String(job!.dir);
}

type Rec = Record<string, any>;

function verdicts(dir: string, probe?: string): Rec[] {
  return readJsonl(join(dir, 'evidence.jsonl')).filter((r) => r.type === 'verdict' && (probe === undefined || r.probe === probe)) as Rec[];
}

function summary(dir: string): Rec {
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Rec;
}

/** The agent events nightshift recorded as `agent:{…}` markers, and the other markers. */
async function markers(dir: string): Promise<{ events: Rec[]; labels: string[] }> {
  const cast = await readCast(join(dir, 'recording.cast'));
  const labels = cast.events.filter((e) => e.code === 'm').map((e) => e.data);
  const events = labels.filter((l) => l.startsWith('agent:')).map((l) => JSON.parse(l.slice('agent:'.length)) as Rec);
  return { events, labels };
}

/** How many tool calls the agent had made when nightshift gave `verdict`: up to the call of its last evidence (a result). */
function callsAtDecision(events: Rec[], verdict: Rec): number {
  const last = (verdict.evidence as string[]).at(-1);
  const result = events.find((e) => e.kind === 'tool-result' && e.id === last);
  expect(result, `the verdict's last evidence ${last} among the recorded results`).toBeDefined();
  const calls = events.filter((e) => e.kind === 'tool-call');
  const at = calls.findIndex((c) => c.id === result!.callId);
  expect(at, `the call ${String(result!.callId)} of result ${last}`).toBeGreaterThanOrEqual(0);
  return at + 1;
}

/** Text nightshift typed into the job (recorded as "i" events); a bare control key (the Ctrl-C of a stop) is left out. */
async function typed(dir: string): Promise<string[]> {
  const cast = await readCast(join(dir, 'recording.cast'));
  return cast.events.filter((e) => e.code === 'i' && !/^[\x00-\x1f]$/.test(e.data)).map((e) => e.data);
}

/** Every key nightshift typed into the job, control keys included. */
async function typedKeys(dir: string): Promise<string[]> {
  const cast = await readCast(join(dir, 'recording.cast'));
  return cast.events.filter((e) => e.code === 'i').map((e) => e.data);
}

/** Polls until `value()` has stayed the same for `stillMs` (the agent has stopped calling), within `deadlineMs`. */
async function settled(value: () => number, stillMs: number, deadlineMs: number): Promise<void> {
  let last = value();
  let since = Date.now();
  await until(() => {
    const now = value();
    if (now !== last) [last, since] = [now, Date.now()];
    return Date.now() - since >= stillMs ? true : undefined;
  }, deadlineMs, `no change for ${stillMs} ms`);
}

/** The end of the job: its exit and the last state line. */
async function finished(p: CliProcess, ms = FINISH): Promise<{ exit: Exit; state: JsonLine }> {
  const exit = await p.waitExit(ms);
  const state = p.jsonLines().filter((o) => o.type === 'state').at(-1)!;
  return { exit, state };
}

/** Main (with tools) requests the fake model answered. */
const mainRequests = (s: FakeAnthropic) => s.requests.filter((r) => r.step !== undefined);

/** The text the person (or nightshift) typed last in a request (fake-anthropic.ts). */
const lastUserText = (r: RecordedRequest): string | undefined => lastUserTextOf(r.body);


/** Content blocks of one type in the session transcripts' records of one type (assistant tool_use, user tool_result). */
function transcriptBlocks(h: ClaudeHome, record: 'assistant' | 'user', block: string): any[] {
  return transcripts(h)
    .flatMap((f) => readJsonl(f))
    .filter((r) => r.type === record)
    .flatMap((r) => contentBlocks(r.message))
    .filter((b) => b?.type === block);
}

// ---------------------------------------------------------------- tests

describe.skipIf(skipClaudeTests())('probes on the real Claude Code 2.1.112 offline, under nightshift run', () => {
  it('a loop of the same failing Bash call (cat missing.txt ×10) is escalated at the 3rd call and binds: the job is blocked on probe:repeated-failure, Claude is interrupted with Esc, at most 2 more calls reach the model (issue 10.1)', async () => {
    const server = await fake([...Array.from({ length: 10 }, () => bash('cat missing.txt')), { text: 'I could not read missing.txt.' }]);
    const h = claudeHome(project(), server.url);
    const p = runClaude(h, tempDir(), 'please show me missing.txt');

    const failure = await p.waitForJson(isAction('escalate', /^probe:repeated-(?:failure|action)$/), START, 'the loop escalation');
    const atEscalation = mainRequests(server).length;
    expect(failure).toMatchObject({ layer: 'probe', rule: null, class: null });
    const blocked = await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked', SOON, 'blocked on the probe');
    expect(blocked.reason).toBe(failure.reason);
    expect(String(blocked.detail)).toContain('cat missing.txt');
    // Claude's turn ends: its transcript says it was interrupted, and no more calls come.
    await until(() => transcripts(h).some((f) => readFileSync(f, 'utf8').includes('[Request interrupted by user')), SOON, 'the interrupted turn');
    await settled(() => mainRequests(server).length, 3_000, SOON);
    expect(mainRequests(server).length - atEscalation).toBeLessThanOrEqual(2);
    expect(mainRequests(server).length).toBeLessThan(11);
    // Still blocked, nothing typed but the Esc (a person decides what comes next).
    expect(p.jsonLines().filter((o) => o.type === 'state').at(-1)).toMatchObject({ state: 'blocked', reason: failure.reason });
    p.child.kill('SIGTERM');
    await finished(p);
    const dir = jobDir(p);
    expect(await typedKeys(dir)).toContain('\x1b');
    expect(readJsonl(join(dir, 'evidence.jsonl')).filter((r) => r.type === 'bind')).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'interrupt', key: 'escape', try: 1 })]),
    );

    // One escalation, one page: the other verdict on the same calls is evidence only.
    expect(actions(p).filter((a) => a.kind === 'escalate')).toHaveLength(1);
    const { events } = await markers(dir);
    const byId = new Map(events.map((e) => [e.id as string, e]));
    const transcript = basename(String(summary(dir).agent.transcript));
    const [rf] = verdicts(dir, 'repeated-failure');
    expect(rf).toMatchObject({ agent: 'claude', severity: 'warn', response: 'escalate' });
    expect(rf!.evidence).toHaveLength(3);
    for (const id of rf!.evidence as string[]) {
      expect(id.startsWith(`${transcript}:`)).toBe(true);
      expect(byId.get(id)).toMatchObject({ kind: 'tool-result', tool: 'Bash', ok: false });
      expect(byId.get(id)!.errorHead).toContain('missing.txt');
    }
    const [ra] = verdicts(dir, 'repeated-action');
    expect(ra).toMatchObject({ agent: 'claude', response: 'escalate' });
    const calls = events.filter((e) => e.kind === 'tool-call');
    expect(ra!.evidence).toEqual(calls.slice(0, 3).map((c) => c.id));
    for (const c of calls) expect(c.args.command).toBe('cat missing.txt');
    const turn = events.find((e) => e.kind === 'turn-start')!;
    expect(rf!.turn).toBe(turn.id);
    expect(verdicts(dir, 'fake-completion')).toEqual([]);
    // Nothing was verified, and the interrupted turn has no final answer.
    expect(summary(dir).agent).toMatchObject({ verified: false, final_answer: '' });
  }, TEST_TIMEOUT);

  it('an error loop over changing file names (cat does-not-exist-N.txt) is escalated within 8 calls as repeated-failure and binds: blocked, interrupted, at most 2 more calls (issue 10.3)', async () => {
    const server = await fake(Array.from({ length: 12 }, (_, i) => bash(`cat does-not-exist-${i + 3}.txt`)));
    const h = claudeHome(project(), server.url);
    const p = runClaude(h, tempDir(), 'please show me the data files');

    const failure = await p.waitForJson(isAction('escalate', /^probe:(?:repeated-failure|no-progress)$/), START, 'the error-loop escalation');
    const atEscalation = mainRequests(server).length;
    expect(String(failure.text)).toMatch(/No such file or directory/);
    await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && o.reason === failure.reason, SOON, 'blocked on the probe');
    await settled(() => mainRequests(server).length, 3_000, SOON);
    expect(mainRequests(server).length - atEscalation).toBeLessThanOrEqual(2);
    p.child.kill('SIGTERM');
    await finished(p);
    const dir = jobDir(p);
    const { events } = await markers(dir);
    const verdict = verdicts(dir, String(failure.reason).slice('probe:'.length)).find((v) => v.response === 'escalate');
    // Escalated within 8 calls: at most 8 requests (a request per call, the first one carrying none) by the time nightshift
    // decided. Counted in its own record, not by when this process read the line (seconds late on a loaded machine).
    expect(callsAtDecision(events, verdict!) + 1).toBeLessThanOrEqual(8);
    const calls = events.filter((e) => e.kind === 'tool-call');
    expect(new Set(calls.map((c) => c.args.command)).size).toBe(calls.length);
    expect(verdict!.evidence.length).toBeGreaterThanOrEqual(3);
  }, TEST_TIMEOUT);

  it('announce-then-stop: "I\'ll now run the tests:" with no tool call gets one "continue" nudge, the model receives it, and the next scripted turn runs', async () => {
    const server = await fake([{ text: "I'll now run the tests:" }, bash('echo 3 tests passed'), { text: 'All 3 tests pass.' }]);
    const h = claudeHome(project(), server.url);
    const p = runClaude(h, tempDir(), 'please run the tests');

    const nudge = await p.waitForJson(isAction('nudge', 'probe:announce-then-stop'), START, 'nudge');
    expect(nudge).toMatchObject({ layer: 'probe', keys: ['continue', 'enter'] });
    expect(String(nudge.text)).toContain("I'll now run the tests:");
    // The fake model gets a new user message "continue" and answers it with the next scripted step.
    const continued = await until(() => mainRequests(server).find((r) => lastUserText(r) === 'continue'), START, 'a request carrying "continue"');
    expect(continued.step).toEqual(bash('echo 3 tests passed'));

    const { state } = await finished(p);
    expect(state).toMatchObject({ state: 'done', reason: 'turn-ended' });
    const dir = jobDir(p);
    // The third request carries the tool_result of the Bash call, no typed text.
    expect(mainRequests(server).map(lastUserText)).toEqual(['please run the tests', 'continue', undefined]);
    expect(mainRequests(server).map((r) => r.step)).toEqual([{ text: "I'll now run the tests:" }, bash('echo 3 tests passed'), { text: 'All 3 tests pass.' }]);
    expect(actions(p).filter((a) => a.kind === 'nudge')).toHaveLength(1);
    expect(actions(p).filter((a) => a.kind !== 'nudge')).toEqual([]);
    expect(await typed(dir)).toEqual(['continue\r']);

    const [v] = verdicts(dir, 'announce-then-stop');
    expect(v).toMatchObject({ agent: 'claude', severity: 'info', response: 'nudge' });
    const { events } = await markers(dir);
    const byId = new Map(events.map((e) => [e.id as string, e]));
    expect(v!.evidence.map((id: string) => byId.get(id)?.kind)).toEqual(['assistant-text', 'turn-end']);
    // The nudge opened a new turn in Claude's own transcript, and the work went on in it.
    expect(events.filter((e) => e.kind === 'turn-start').map((e) => e.text)).toEqual(['please run the tests', 'continue']);
    expect(events.filter((e) => e.kind === 'tool-call').map((e) => e.args.command)).toEqual(['echo 3 tests passed']);
    expect(summary(dir).agent).toMatchObject({ final_answer: 'All 3 tests pass.', steps: 1 });
  }, TEST_TIMEOUT);

  it('announce-then-stop, again and again: two nudges, then an escalation instead of a third', async () => {
    const server = await fake([
      { text: "I'll now run the tests:" },
      { text: 'Let me run the tests now:' },
      { text: 'Next, I will run the tests:' },
      { text: 'Never asked for.' },
    ]);
    const h = claudeHome(project(), server.url);
    const p = runClaude(h, tempDir(), 'please run the tests');

    const escalate = await p.waitForJson(isAction('escalate', 'probe:announce-then-stop'), START, 'escalation');
    expect(String(escalate.why)).toMatch(/stop nudging/);
    // The escalation binds: blocked on it until a person acts; the turn was over, so nothing is interrupted.
    await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && o.reason === 'probe:announce-then-stop', SOON, 'blocked');
    p.child.kill('SIGTERM');
    await finished(p);
    const dir = jobDir(p);
    expect(actions(p).map((a) => a.kind)).toEqual(['nudge', 'nudge', 'escalate']);
    expect(await typed(dir)).toEqual(['continue\r', 'continue\r']);
    expect(readJsonl(join(dir, 'evidence.jsonl')).filter((r) => r.type === 'bind')).toMatchObject([{ action: 'none', probe: 'announce-then-stop' }]);
    expect(mainRequests(server).map(lastUserText)).toEqual(['please run the tests', 'continue', 'continue']);
    expect(server.turns).toBe(3);
    expect(verdicts(dir, 'announce-then-stop').map((v) => v.response)).toEqual(['nudge', 'nudge', 'escalate']);
  }, TEST_TIMEOUT);

  it('fake completion: "I created the file notes.md." with no write call and no git change is a fake-completion verdict, escalated', async () => {
    const server = await fake([{ text: 'I created the file notes.md.' }]);
    const dirProject = project({ git: true });
    const h = claudeHome(dirProject, server.url);
    const p = runClaude(h, tempDir(), 'please create notes.md with a summary of the README');

    const action = await p.waitForJson(isAction('escalate', 'probe:fake-completion'), START, 'fake-completion escalation');
    expect(String(action.why)).toContain('claims completion ("I created the file notes.md")');
    expect(String(action.why)).toContain('and git saw no change');
    await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && o.reason === 'probe:fake-completion', SOON, 'blocked');
    p.child.kill('SIGTERM');
    await finished(p);
    const dir = jobDir(p);
    expect(existsSync(join(h.project, 'notes.md'))).toBe(false);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: h.project, encoding: 'utf8' })).toBe('');

    const [v] = verdicts(dir, 'fake-completion');
    expect(v).toMatchObject({ agent: 'claude', severity: 'critical', response: 'escalate' });
    const { events, labels } = await markers(dir);
    const byId = new Map(events.map((e) => [e.id as string, e]));
    expect(v!.evidence.map((id: string) => byId.get(id)?.kind)).toEqual(['assistant-text', 'turn-end']);
    expect(byId.get(v!.evidence[0])!.text).toBe('I created the file notes.md.');
    // git was measured and saw no change in that turn.
    expect(labels).toContain(`git:${v!.evidence[1]}:false`);
    expect(events.filter((e) => e.kind === 'tool-call')).toEqual([]);
    expect(actions(p).filter((a) => a.kind === 'escalate').map((a) => a.reason)).toEqual(['probe:fake-completion']);
  }, TEST_TIMEOUT);

  // Once, 3 s after the escalation the job was stopped as done/turn-ended, a
  // success, so the refused claim became the accepted final answer. Now the
  // escalation binds and the job waits for a person; an end other
  // than a success, with a resume card, would pass as well.
  it('a refused claim is not a success: after a fake-completion escalation the job does not end done/turn-ended without a resume card', async () => {
    const server = await fake([{ text: 'I created the file notes.md.' }]);
    const h = claudeHome(project({ git: true }), server.url);
    const p = runClaude(h, tempDir(), 'please create notes.md with a summary of the README');

    await p.waitForJson(isAction('escalate', 'probe:fake-completion'), START, 'fake-completion escalation');
    // Long enough for the 3 s turn-end rule and the stop (interrupt) that follows it.
    const ended = await until(() => p.exited, 10_000, 'the end of the job').catch(() => undefined);
    if (ended === undefined) {
      // Still running, the person was alerted: fine. Stop it the graceful way, so Claude is gone before its HOME is removed.
      p.child.kill('SIGTERM');
      await p.waitExit(20_000);
      return;
    }
    const dir = jobDir(p);
    const last = p.jsonLines().filter((o) => o.type === 'state').at(-1)!;
    expect(`${last.state}/${last.reason}`).not.toBe('done/turn-ended');
    expect(existsSync(join(dir, 'resume.json'))).toBe(true);
  }, TEST_TIMEOUT);

  it('two jobs at once in one folder (one HOME, same task text): each follows its own transcript, and each one\'s verdicts match its own script', async () => {
    // The model takes a moment over its last answer, as a real one does: with an instant fake, whether
    // the interrupt lands before that answer is a race the bound (at most 2 more calls) allows either way.
    const looping = await fake([...Array.from({ length: 4 }, () => bash('cat missing-a.txt')), { text: 'Job A gave up.', delayMs: 1_500 }]);
    const announcing = await fake([{ text: "I'll now check the notes:" }, bash('echo job-b-checked'), { text: 'Job B checked the notes.' }]);
    const dir = project();
    const home = tempDir('ns-probe-home-');
    const ha = claudeHome(dir, looping.url, home);
    const hb = claudeHome(dir, announcing.url, home);
    const state = tempDir();
    const task = 'please check the notes';
    const a = runClaude(ha, state, task, { name: 'job-a' });
    const b = runClaude(hb, state, task, { name: 'job-b' });

    // Job A's loop binds (blocked, interrupted); job B's nudge lets it finish its turn.
    await a.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && /^probe:repeated-/.test(String(o.reason)), START, 'job A blocked on its loop');
    await finished(b);
    a.child.kill('SIGTERM');
    await finished(a);
    const da = jobDir(a);
    const db = jobDir(b);
    expect(da).not.toBe(db);
    const ta = String(summary(da).agent.transcript);
    const tb = String(summary(db).agent.transcript);
    expect(ta).not.toBe(tb);
    expect(transcripts(ha).sort()).toEqual([ta, tb].sort());
    // Each transcript is the session of its own model server's conversation.
    expect(readFileSync(ta, 'utf8')).toContain('missing-a.txt');
    expect(readFileSync(ta, 'utf8')).not.toContain('job-b-checked');
    expect(readFileSync(tb, 'utf8')).toContain('job-b-checked');
    expect(readFileSync(tb, 'utf8')).not.toContain('missing-a.txt');

    // Job A: the loop, escalated; no nudge. Job B: the announcement, nudged; no loop.
    expect(verdicts(da).map((v) => v.probe).sort()).toEqual(['repeated-action', 'repeated-failure']);
    expect(actions(a).map((x) => `${x.kind} ${x.reason}`)).toEqual([expect.stringMatching(/^escalate probe:repeated-(?:action|failure)$/)]);
    expect(verdicts(db).map((v) => v.probe)).toEqual(['announce-then-stop']);
    expect(actions(b).map((x) => `${x.kind} ${x.reason}`)).toEqual(['nudge probe:announce-then-stop']);
    // Every piece of evidence points into the job's own transcript.
    for (const v of verdicts(da)) for (const id of v.evidence as string[]) expect(id.startsWith(`${basename(ta)}:`)).toBe(true);
    for (const v of verdicts(db)) for (const id of v.evidence as string[]) expect(id.startsWith(`${basename(tb)}:`)).toBe(true);
    // The recordings carry only their own agent's events.
    const ma = await markers(da);
    const mb = await markers(db);
    // Interrupted at the 3rd failure: the 4th call may have been on its way.
    const callsA = ma.events.filter((e) => e.kind === 'tool-call').map((e) => e.args.command);
    expect(callsA.length).toBeGreaterThanOrEqual(3);
    expect(new Set(callsA)).toEqual(new Set(['cat missing-a.txt']));
    expect(mb.events.filter((e) => e.kind === 'tool-call').map((e) => e.args.command)).toEqual(['echo job-b-checked']);
    // The nudge went to job B's Claude only.
    expect(mainRequests(announcing).map(lastUserText)).toContain('continue');
    expect(mainRequests(looping).map(lastUserText)).not.toContain('continue');
    expect(summary(da).agent.final_answer).not.toBe('Job A gave up.');
    expect(summary(db).agent.final_answer).toBe('Job B checked the notes.');
  }, TEST_TIMEOUT);

  it('done means done: touch done.txt, then "Done: created done.txt" ends the job done/turn-ended with the final answer and no resume card', async () => {
    const server = await fake([bash('touch done.txt'), { text: 'Done: created done.txt' }]);
    const h = claudeHome(project({ git: true }), server.url);
    const task = 'please create done.txt';
    const p = runClaude(h, tempDir(), task);

    const { exit, state } = await finished(p);
    expect(state).toMatchObject({ state: 'done', reason: 'turn-ended' });
    const dir = jobDir(p);
    expect(existsSync(join(h.project, 'done.txt'))).toBe(true);
    const s = summary(dir);
    expect(s).toMatchObject({ state: 'done', reason: 'turn-ended' });
    expect(s.agent).toMatchObject({ agent: 'claude', final_answer: 'Done: created done.txt', steps: 1 });
    expect(s.agent.transcript).toBe(transcripts(h)[0]);
    expect(transcripts(h)).toHaveLength(1);
    // A real write backs the claim: no fake completion; nothing was read afterwards: unverified, recorded only.
    expect(verdicts(dir, 'fake-completion')).toEqual([]);
    expect(verdicts(dir).map((v) => `${v.probe}/${v.response}`)).toEqual(['unverified-change/record']);
    expect(s.agent.verified).toBe(false);
    expect(actions(p)).toEqual([]);
    expect(existsSync(join(dir, 'resume.json'))).toBe(false);
    expect(existsSync(join(dir, 'resume.md'))).toBe(false);
    // A success is a success for the caller too: `nightshift run` exits 0, as `claude -p` would.
    expect(exit).toEqual({ code: 0, signal: null });
  }, TEST_TIMEOUT);

  it('a job stopped by --timeout (Claude busy in sleep 30) writes resume.json and resume.md with the goal', async () => {
    const server = await fake([bash('sleep 30'), { text: 'Slept.' }]);
    const h = claudeHome(project({ git: true }), server.url);
    const task = 'please wait half a minute';
    const p = runClaude(h, tempDir(), task, { timeout: '8s' });

    // The call is under way before the timeout strikes.
    await until(() => mainRequests(server).length >= 1, START, 'the first model request');
    const { state } = await finished(p);
    expect(state).toMatchObject({ state: 'done', reason: 'timeout' });
    const dir = jobDir(p);
    const card = JSON.parse(readFileSync(join(dir, 'resume.json'), 'utf8')) as Rec;
    expect(card).toMatchObject({ agent: 'claude', goal: task, stop_reason: 'timeout', cwd: h.project });
    expect(card.command.at(-1)).toBe(task);
    expect(card.budget_used.steps).toBe(1);
    expect(card.budget_used.wall_ms).toBeGreaterThanOrEqual(8_000);
    // The sleep's outcome: in Claude's transcript (an interrupted result), or else listed as unknown on the card.
    const sleepUse = transcriptBlocks(h, 'assistant', 'tool_use').find((b) => b.input?.command === 'sleep 30');
    expect(sleepUse).toBeDefined();
    const sleepResult = transcriptBlocks(h, 'user', 'tool_result').find((b) => b.tool_use_id === sleepUse.id);
    if (sleepResult === undefined) expect(card.unknown_outcome.join('\n')).toContain('sleep 30');
    else expect(card.unknown_outcome).toEqual([]);
    expect(card.session).toBe(basename(transcripts(h)[0]!, '.jsonl'));
    const md = readFileSync(join(dir, 'resume.md'), 'utf8');
    expect(md).toContain(`**Goal:** ${task}`);
    expect(md).toContain('**Stopped:** timeout');
    // No answer was given (the turn was interrupted): null, or the empty text of the interrupted turn.
    expect(summary(dir).agent.final_answer || null).toBeNull();
  }, TEST_TIMEOUT);
});

describe.skipIf(skipCodexTests())('probes on the real Codex CLI 0.171 offline (Responses API fake), under nightshift run', () => {
  it('a loop of the same exec_command (cat missing.txt ×10) is escalated and binds: blocked on the probe, Codex interrupted with Esc, at most 2 more calls reach the model (issue 10.1)', async () => {
    const server = await fakeOpenAI([...Array.from({ length: 10 }, () => execCommand('cat missing.txt')), { text: 'I could not read missing.txt.' }]);
    const h = prepareCodexHome(project(), server.url, { home: tempDir('ns-probe-codex-home-') });
    const p = runCodex(h, tempDir(), 'please show me missing.txt');

    const failure = await p.waitForJson(isAction('escalate', /^probe:repeated-(?:failure|action)$/), START, 'the loop escalation');
    const atEscalation = functionOutputs(server.requests).length;
    await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && o.reason === failure.reason, SOON, 'blocked on the probe');
    await settled(() => functionOutputs(server.requests).length, 3_000, SOON);
    expect(functionOutputs(server.requests).length - atEscalation).toBeLessThanOrEqual(2);
    expect(p.jsonLines().filter((o) => o.type === 'state').at(-1)).toMatchObject({ state: 'blocked', reason: failure.reason });
    p.child.kill('SIGTERM');
    await finished(p);
    const dir = jobDir(p);
    expect(await typedKeys(dir)).toContain('\x1b');

    const outputs = functionOutputs(server.requests);
    for (const o of outputs) expect(String(o.output)).toMatch(/Process exited with code 1[\s\S]*cat: missing.txt: No such file or directory/);
    const s = summary(dir);
    expect(rollouts(h)).toEqual([s.agent.transcript]);
    const rollout = basename(String(s.agent.transcript));
    expect(actions(p).filter((a) => a.kind === 'escalate')).toHaveLength(1);
    const { events } = await markers(dir);
    const byId = new Map(events.map((e) => [e.id as string, e]));
    const calls = events.filter((e) => e.kind === 'tool-call');
    for (const c of calls) expect(c.canonical).toBe('exec_command {"cmd":"cat missing.txt"}');
    const [ra] = verdicts(dir, 'repeated-action');
    expect(ra).toMatchObject({ agent: 'codex', response: 'escalate' });
    expect(ra!.evidence).toEqual(calls.slice(0, 3).map((c) => c.id));
    const [rf] = verdicts(dir, 'repeated-failure');
    expect(rf).toMatchObject({ agent: 'codex', response: 'escalate' });
    expect(rf!.evidence).toHaveLength(3);
    for (const id of rf!.evidence as string[]) {
      expect(id.startsWith(`${rollout}:`)).toBe(true);
      expect(byId.get(id)).toMatchObject({ kind: 'tool-result', tool: 'exec_command', ok: false });
    }
  }, TEST_TIMEOUT);

  // Fails on 0.171 (a bug in src/adapters/codex.ts, see the report): the rollout
  // no longer has `event_msg` `user_message`; a prompt is `event_msg`
  // `item_completed` with `item.type: "UserMessage"` (after `task_started`),
  // so no turn-start is ever emitted and the first prompt of a rollout is unknown.
  it('an error loop over changing file names is escalated within 8 calls on Codex too, and binds (issue 10.3)', async () => {
    const server = await fakeOpenAI(Array.from({ length: 12 }, (_, i) => execCommand(`cat does-not-exist-${i + 3}.txt`)));
    const h = prepareCodexHome(project(), server.url, { home: tempDir('ns-probe-codex-home-') });
    const p = runCodex(h, tempDir(), 'please show me the data files');

    const failure = await p.waitForJson(isAction('escalate', /^probe:(?:repeated-failure|no-progress)$/), START, 'the error-loop escalation');
    const atEscalation = functionOutputs(server.requests).length;
    await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked' && o.reason === failure.reason, SOON, 'blocked on the probe');
    await settled(() => functionOutputs(server.requests).length, 3_000, SOON);
    expect(functionOutputs(server.requests).length - atEscalation).toBeLessThanOrEqual(2);
    p.child.kill('SIGTERM');
    await finished(p);
    const dir = jobDir(p);
    const verdict = verdicts(dir, String(failure.reason).slice('probe:'.length)).find((v) => v.response === 'escalate');
    expect(callsAtDecision((await markers(dir)).events, verdict!)).toBeLessThanOrEqual(8);
  }, TEST_TIMEOUT);

  it('Codex turns start with the prompt, and a nudge opens a new turn: turn-start events for the task and for "continue"', async () => {
    const server = await fakeOpenAI([{ text: "I'll now run the tests:" }, execCommand('echo 3 tests passed'), { text: 'All 3 tests pass.' }]);
    const h = prepareCodexHome(project(), server.url, { home: tempDir('ns-probe-codex-home-') });
    const task = 'please run the tests';
    const p = runCodex(h, tempDir(), task);

    const nudge = await p.waitForJson(isAction('nudge', 'probe:announce-then-stop'), START, 'nudge');
    expect(nudge).toMatchObject({ keys: ['continue', 'enter'] });
    const continued = await until(() => server.requests.find((r) => isMainResponsesRequest(r) && lastUserInput(r) === 'continue'), START, 'a request carrying "continue"');
    expect(continued.step).toEqual(execCommand('echo 3 tests passed'));
    const { state } = await finished(p);
    expect(state).toMatchObject({ state: 'done', reason: 'turn-ended' });
    const dir = jobDir(p);
    expect(summary(dir).agent.final_answer).toBe('All 3 tests pass.');
    const { events } = await markers(dir);
    expect(events.filter((e) => e.kind === 'turn-start').map((e) => e.text)).toEqual([task, 'continue']);
  }, TEST_TIMEOUT);
});
