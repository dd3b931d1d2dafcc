/**
 * `nightshift run` end to end: the built CLI supervising real programs in
 * real PTYs. Every test has its own state directory; synchronisation is by
 * lines on nightshift's stderr with deadlines, never by fixed sleeps.
 * Needs a build first (npx tsc -p tsconfig.json): bin/nightshift.js runs dist/.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCast } from '../../src/record/cast-reader.js';
import type { Cast } from '../../src/record/asciicast.js';
import { cleanup, jobDirs, readJsonl, runCli, startCli, tempDir, type CliProcess, type JsonLine } from '../helpers/cli.js';

afterEach(cleanup);

/** Generous deadlines: the CI machine has 2 cores and another test file runs beside this one. */
const SOON = 8_000;

const isState = (state: string, reason?: string) => (o: JsonLine) =>
  o.type === 'state' && o.state === state && (reason === undefined || o.reason === reason);

function states(p: CliProcess): JsonLine[] {
  return p.jsonLines().filter((o) => o.type === 'state');
}

function actions(p: CliProcess): JsonLine[] {
  return p.jsonLines().filter((o) => o.type === 'action');
}

/** The job line of --json output: its folder, checked to sit in the test's state dir. */
function jobOf(p: CliProcess, stateDir: string): { id: string; dir: string } {
  const job = p.jsonLines()[0];
  expect(job?.type).toBe('job');
  const dir = job!.dir as string;
  expect(dir).toBe(join(stateDir, 'jobs', job!.id as string));
  return { id: job!.id as string, dir };
}

function summaryOf(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Record<string, any>;
}

const markers = (cast: Cast) => cast.events.filter((e) => e.code === 'm').map((e) => e.data);
const outputText = (cast: Cast) =>
  cast.events
    .filter((e) => e.code === 'o')
    .map((e) => e.data)
    .join('');

/** Milliseconds between two ISO times. */
const between = (a: unknown, b: unknown) => Date.parse(String(b)) - Date.parse(String(a));

describe('nightshift run: prompts', () => {
  it('a [y/N] question blocks as a confirm prompt, the person answers, the job finishes; evidence, recording and summary agree', async () => {
    const state = tempDir();
    const p = startCli([
      'run', '--json', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30', '--',
      'bash', '-c', 'read -p "Continue with the setup? [y/N] " a; echo "got:$a"',
    ]);
    const blocked = await p.waitForJson(isState('blocked'), SOON, 'blocked state');
    expect(blocked).toMatchObject({ state: 'blocked', reason: 'prompt', rule: 'generic-yes-no', class: 'confirm' });
    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalate action');
    expect(action).toMatchObject({ kind: 'escalate', rule: 'generic-yes-no', class: 'confirm', reason: 'prompt' });
    for (const k of ['kind', 'rule', 'class', 'prompt', 'text', 'reason', 'time', 'since']) expect(action).toHaveProperty(k);
    expect(action.prompt).toBe('Continue with the setup? [y/N]');
    expect(action.text).toContain('Continue with the setup? [y/N]');
    // bash sits in read(2) on the terminal, so the prompt settles early: 250 ms, not the 1 s of --settle.
    expect(between(action.since, action.time)).toBeGreaterThanOrEqual(249);
    expect(between(action.since, action.time)).toBeLessThan(990);
    expect(p.exited).toBeUndefined();

    p.write('n\r');
    const cleared = await p.waitForJson(isState('running', 'prompt-cleared'), SOON, 'prompt-cleared');
    expect(between(blocked.time, cleared.time)).toBeGreaterThanOrEqual(0);
    const exit = await p.waitExit(SOON);
    expect(exit).toEqual({ code: 0, signal: null });

    expect(p.stdout).toContain('got:n');
    expect(states(p).map((s) => `${s.state}/${s.reason}`)).toEqual([
      'running/started', 'blocked/prompt', 'running/prompt-cleared', 'done/exit',
    ]);
    expect(states(p).at(-1)).toMatchObject({ exit_code: 0, signal: null });
    expect(actions(p)).toHaveLength(1);

    const { id, dir } = jobOf(p, state);
    const evidence = readJsonl(join(dir, 'evidence.jsonl'));
    expect(evidence.map((r) => r.type)).toEqual(['prompt', 'outcome']);
    expect(evidence[0]).toMatchObject({
      type: 'prompt', episode: 1, job: id, rule: 'generic-yes-no', class: 'confirm',
      reason: 'prompt', prompt: 'Continue with the setup? [y/N]', decision: 'escalate',
    });
    expect(evidence[0]!.screen as string[]).toContain('Continue with the setup? [y/N]');
    expect(evidence[1]).toMatchObject({ type: 'outcome', episode: 1, job: id, followed: 'prompt-cleared' });

    const cast = await readCast(join(dir, 'recording.cast'));
    expect(cast.header).toMatchObject({ version: 2, width: 100, height: 30 });
    const promptAt = cast.events.findIndex((e) => e.code === 'o' && e.data.includes('Continue with the setup? [y/N]'));
    const inputAt = cast.events.findIndex((e) => e.code === 'i');
    expect(promptAt).toBeGreaterThanOrEqual(0);
    expect(inputAt).toBeGreaterThan(promptAt);
    expect(cast.events[inputAt]!.data).toBe('n\r');
    expect(outputText(cast)).toContain('got:n');
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:0' });

    const summary = summaryOf(dir);
    expect(summary).toMatchObject({ id, state: 'done', reason: 'exit', exit: { code: 0, signal: null } });
    expect(summary.ended).toEqual(expect.any(String));
    expect(summary.transitions).toContainEqual(expect.objectContaining({ state: 'blocked', reason: 'prompt', rule: 'generic-yes-no' }));
    expect(summary.final_screen).toContain('got:n');
  });

  it('rm -i blocks as a destructive prompt (human-readable stderr); answered "n" the file survives', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-rm-');
    const file = join(work, 'precious.txt');
    writeFileSync(file, 'keep me\n');
    const p = startCli(['run', '--state', state, '--settle', '1s', '--quiet', '--cwd', work, '--', 'rm', '-i', file]);
    const blockedLine = await p.waitForLine((l) => / blocked \(/.test(l), SOON, 'a blocked line');
    expect(blockedLine).toMatch(/^nightshift: \S+ blocked \(prompt rm-interactive destructive\)$/);
    const escalate = await p.waitForLine((l) => l.startsWith('nightshift: ESCALATE'), SOON, 'ESCALATE line');
    expect(escalate).toContain(`rm: remove regular file '${file}'?`);
    expect(existsSync(file)).toBe(true);

    p.write('n\r');
    const exit = await p.waitExit(SOON);
    expect(exit.code).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    // --quiet: nothing of the job's screen on stdout.
    expect(p.stdout).toBe('');
    expect(p.stderrLines.filter((l) => l.includes('ESCALATE'))).toHaveLength(1);
    expect(p.stderr).not.toMatch(/^\s+at /m);

    const [dir] = jobDirs(state);
    const evidence = readJsonl(join(dir!, 'evidence.jsonl'));
    expect(evidence[0]).toMatchObject({ type: 'prompt', rule: 'rm-interactive', class: 'destructive', decision: 'escalate' });
    expect(evidence[1]).toMatchObject({ type: 'outcome', followed: 'prompt-cleared' });
    expect(summaryOf(dir!).cwd).toBe(work);
  });
});

describe('nightshift run: quiet screens', () => {
  it('a busy child with a still screen is never blocked: running (quiet-child-busy), proc:busy recorded', async () => {
    const state = tempDir();
    const p = startCli([
      'run', '--json', '--state', state, '--screen-quiet', '1s', '--tool-gap', '2s', '--',
      'bash', '-c', 'echo start; python3 -c "import time; t=time.time()\nwhile time.time()-t<6: pass"; echo end',
    ]);
    await p.waitForJson(isState('running', 'quiet-child-busy'), SOON, 'running/quiet-child-busy');
    const exit = await p.waitExit(20_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(states(p).filter((s) => s.state === 'blocked')).toEqual([]);
    expect(actions(p)).toEqual([]);
    expect(states(p).at(-1)).toMatchObject({ state: 'done', reason: 'exit', exit_code: 0 });
    const { dir } = jobOf(p, state);
    const cast = await readCast(join(dir, 'recording.cast'));
    expect(markers(cast)).toContain('proc:busy');
    expect(outputText(cast)).toContain('end');
    // The quiet lasted well past the tool gap, so only the busy child kept it from "hung".
    const last = cast.events.at(-1)!;
    expect(last.t).toBeGreaterThan(5);
    expect(readJsonl(join(dir, 'evidence.jsonl'))).toEqual([]);
  });

  it('a hang (nothing moves) is blocked as hung after the tool gap, escalated once; --timeout stops it gracefully (interrupt first) with reason timeout', async () => {
    const state = tempDir();
    const p = startCli([
      'run', '--json', '--state', state, '--screen-quiet', '1s', '--tool-gap', '2s', '--timeout', '5s', '--', 'sleep', '30',
    ]);
    const blocked = await p.waitForJson(isState('blocked'), SOON, 'blocked state');
    expect(blocked).toMatchObject({ reason: 'hung' });
    // Measured on nightshift's own clock, so a slow node start does not count: after the gap, within ~5 s.
    const started = states(p).find((s) => s.reason === 'started')!;
    expect(between(started.time, blocked.time)).toBeGreaterThanOrEqual(1_900);
    expect(between(started.time, blocked.time)).toBeLessThan(5_000);
    const action = await p.waitForJson((o) => o.type === 'action', SOON, 'escalate action');
    expect(action).toMatchObject({ kind: 'escalate', reason: 'hung', rule: null, class: null, prompt: null });

    const exit = await p.waitExit(15_000);
    // The timeout's status (as GNU timeout), whatever the interrupt made of the process.
    expect(exit.code).toBe(124);
    expect(actions(p)).toHaveLength(1);
    expect(states(p).at(-1)).toMatchObject({ state: 'done', reason: 'timeout', exit_code: 124, signal: 'SIGINT' });
    const { dir } = jobOf(p, state);
    expect(summaryOf(dir)).toMatchObject({ state: 'done', exit: { code: 124, signal: 'SIGINT' } });
    const evidence = readJsonl(join(dir, 'evidence.jsonl'));
    expect(evidence).toMatchObject([
      { type: 'prompt', reason: 'hung', decision: 'escalate' },
      { type: 'outcome', followed: 'exit:124' },
    ]);
    // The recording keeps the process's own end, as the shell saw it: a drill replays it.
    const cast = await readCast(join(dir, 'recording.cast'));
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:130' });
  });

  it('a tool call in flight (NIGHTSHIFT_EVENTS) keeps a quiet job running past the tool gap; markers recorded', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-tool-');
    const script = join(work, 'job.sh');
    // Builtins only while the tool runs: no child process, no CPU, nothing on screen.
    writeFileSync(
      script,
      [
        `printf '%s\\n' '{"type":"tool_start","name":"Bash","id":"t1"}' >> "$NIGHTSHIFT_EVENTS"`,
        'echo "tool running"',
        'read -t 4 _',
        `printf '%s\\n' '{"type":"tool_end","name":"Bash","id":"t1","ok":true}' >> "$NIGHTSHIFT_EVENTS"`,
        'echo "tool finished"',
        '',
      ].join('\n'),
    );
    const p = startCli(['run', '--json', '--state', state, '--screen-quiet', '1s', '--tool-gap', '3s', '--', 'bash', script]);
    const inFlight = await p.waitForJson(isState('running', 'quiet-tool-in-flight'), SOON, 'running/quiet-tool-in-flight');
    expect(inFlight.detail).toBe('Bash');
    const exit = await p.waitExit(15_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(states(p).filter((s) => s.state === 'blocked')).toEqual([]);
    expect(actions(p)).toEqual([]);

    const { dir } = jobOf(p, state);
    expect(readJsonl(join(dir, 'events.jsonl')).map((e) => e.type)).toEqual(['tool_start', 'tool_end']);
    const cast = await readCast(join(dir, 'recording.cast'));
    const m = markers(cast);
    expect(m).toContain('tool:Bash');
    expect(m).toContain('tool-done:Bash');
    const start = cast.events.find((e) => e.data === 'tool:Bash')!;
    const end = cast.events.find((e) => e.data === 'tool-done:Bash')!;
    // The tool ran longer than the gap: without the event file this job would have been "hung".
    expect(end.t - start.t).toBeGreaterThan(3);
    // The in-flight state came while the tool ran, not after.
    const started = states(p).find((s) => s.reason === 'started')!;
    expect(between(started.time, inFlight.time) / 1_000).toBeLessThan(end.t);
  });
});

describe('nightshift run: exit codes', () => {
  it('exits with the job\'s exit code', async () => {
    const state = tempDir();
    const r = await runCli(['run', '--json', '--state', state, '--', 'bash', '-c', 'exit 7']);
    expect(r.code).toBe(7);
    const last = JSON.parse(r.stderrLines.at(-1)!) as JsonLine;
    expect(last).toMatchObject({ type: 'state', state: 'done', reason: 'exit', exit_code: 7, signal: null });
    const [dir] = jobDirs(state);
    expect(summaryOf(dir!).exit).toEqual({ code: 7, signal: null });
    expect((await readCast(join(dir!, 'recording.cast'))).events.at(-1)).toMatchObject({ code: 'm', data: 'exit:7' });
  });

  it('a job that closes its terminal before it exits keeps its own exit code: no hang-up from nightshift', async () => {
    // As `rm -i` does in its atexit handler: the terminal ends under a living child, which must not be SIGHUPed for it.
    const state = tempDir();
    const r = await runCli(['run', '--json', '--state', state, '--', 'bash', '-c', 'echo closing; exec 0<&- 1>&- 2>&-; sleep 0.5; exit 5']);
    expect(r.code, r.stderr).toBe(5);
    expect(JSON.parse(r.stderrLines.at(-1)!)).toMatchObject({ type: 'state', state: 'done', reason: 'exit', exit_code: 5, signal: null });
  });

  it('a job killed by a signal: 128+n, and the done state names the signal', async () => {
    const state = tempDir();
    const r = await runCli(['run', '--json', '--state', state, '--', 'bash', '-c', 'kill -TERM $$']);
    expect(r.code).toBe(143);
    const last = JSON.parse(r.stderrLines.at(-1)!) as JsonLine;
    expect(last).toMatchObject({ type: 'state', state: 'done', reason: 'signal', signal: 'SIGTERM' });
    const [dir] = jobDirs(state);
    expect(summaryOf(dir!)).toMatchObject({ state: 'done', reason: 'signal', exit: { code: 143, signal: 'SIGTERM' } });
    expect((await readCast(join(dir!, 'recording.cast'))).events.at(-1)).toMatchObject({ code: 'm', data: 'exit:143' });
  });
});

describe('nightshift run: bad input', () => {
  /** Exit 2, exactly one `nightshift: …` line, no stack, nothing on stdout, no job folder. */
  async function rejects(args: string[], message: RegExp | string, state: string) {
    const r = await runCli(args, { env: { NIGHTSHIFT_STATE: state } });
    expect(r.stderrLines, r.stderr).toHaveLength(1);
    const line = r.stderrLines[0]!;
    expect(line).toMatch(/^nightshift: /);
    expect(line).not.toMatch(/internal error/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    if (typeof message === 'string') expect(line).toContain(message);
    else expect(line).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(jobDirs(state)).toEqual([]);
    return line;
  }

  it('unknown flag', async () => {
    const state = tempDir();
    await rejects(['run', '--state', state, '--bogus', '--', 'true'], /unknown option '--bogus'/, state);
  });

  it('missing command', async () => {
    const state = tempDir();
    await rejects(['run', '--state', state], /missing required argument 'command'/, state);
    await rejects(['run', '--state', state, '--'], /missing required argument 'command'/, state);
  });

  it('a working directory that does not exist leaves no job folder behind', async () => {
    const state = tempDir();
    const missing = join(state, 'no', 'such', 'dir');
    await rejects(['run', '--state', state, '--cwd', missing, '--', 'true'], `working directory "${missing}" does not exist`, state);
  });

  it('command not found', async () => {
    const state = tempDir();
    await rejects(['run', '--state', state, '--', 'no-such-command-nightshift-e2e'], 'command not found: no-such-command-nightshift-e2e', state);
    await rejects(['run', '--state', state, '--', './no/such/script'], 'command not found: ./no/such/script', state);
  });

  it('bad durations and sizes', async () => {
    const state = tempDir();
    await rejects(['run', '--state', state, '--timeout', '6x', '--', 'true'], /--timeout "6x" is not a duration/, state);
    await rejects(['run', '--state', state, '--screen-quiet', 'soon', '--', 'true'], /--screen-quiet "soon" is not a duration/, state);
    await rejects(['run', '--state', state, '--cols', '5', '--', 'true'], /--cols "5" must be an integer/, state);
  });

  it('a malformed rules file names file:line', async () => {
    const state = tempDir();
    const rules = join(tempDir('ns-e2e-rules-'), 'rules');
    mkdirSync(rules);
    const bad = join(rules, 'bad.yaml');
    writeFileSync(bad, 'version: 1\nprompts:\n  - id: broken\n    match: "(unclosed"\n    class: confirm\n    answer: [y, enter]\n');
    await rejects(['run', '--state', state, '--rules', rules, '--', 'true'], `${bad}:4: `, state);
    writeFileSync(bad, 'version: 1\nprompts:\n  - id: x\n   bad: [\n');
    await rejects(['run', '--state', state, '--rules', rules, '--', 'true'], new RegExp(`^nightshift: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: not valid YAML`), state);
  });
});

describe('nightshift run: hostile output', () => {
  it('invalid UTF-8 and escape garbage never crash it; the recording parses', async () => {
    const state = tempDir();
    const r = await runCli([
      'run', '--json', '--state', state, '--',
      'printf', '\\xff\\xfe\\x1b[999;999H\\x1b]0;\\x07\\x1b[?1049h junk \\x1b[?1049l\\xc3',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(' junk ');
    const [dir] = jobDirs(state);
    const cast = await readCast(join(dir!, 'recording.cast'));
    expect(outputText(cast)).toContain(' junk ');
    expect(outputText(cast)).toContain('\ufffd');
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:0' });
    expect(summaryOf(dir!)).toMatchObject({ state: 'done', exit: { code: 0 } });
  });

  it('64 KiB of (seeded) random bytes never crash it; the recording parses', async () => {
    const state = tempDir();
    const r = await runCli([
      'run', '--json', '--quiet', '--state', state, '--',
      'python3', '-c', 'import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(65536)))',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [dir] = jobDirs(state);
    const cast = await readCast(join(dir!, 'recording.cast'));
    expect(cast.events.filter((e) => e.code === 'o').length).toBeGreaterThan(0);
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:0' });
  });
});

describe('nightshift run --json', () => {
  it('every stderr line is one JSON object: the job first, then states', async () => {
    const state = tempDir();
    const r = await runCli([
      'run', '--json', '--state', state, '--',
      'bash', '-c', 'echo "id=$NIGHTSHIFT_JOB_ID dir=$NIGHTSHIFT_JOB_DIR"; echo oops >&2; exit 3',
    ]);
    expect(r.code).toBe(3);
    // The job's own stderr goes to the PTY (stdout), never into the JSON stream.
    expect(r.stdout).toContain('oops');
    const lines = r.stderr.split('\n');
    expect(lines.at(-1)).toBe('');
    const objs = lines.slice(0, -1).map((l) => JSON.parse(l) as JsonLine);
    for (const o of objs) expect(typeof o === 'object' && o !== null && !Array.isArray(o)).toBe(true);
    expect(objs[0]).toMatchObject({ type: 'job', id: expect.any(String), dir: expect.any(String) });
    expect(basename(objs[0]!.dir as string)).toBe(objs[0]!.id);
    expect(r.stdout).toContain(`id=${objs[0]!.id as string} dir=${objs[0]!.dir as string}`);
    expect(objs.slice(1).every((o) => o.type === 'state' && typeof o.time === 'string' && !Number.isNaN(Date.parse(o.time)))).toBe(true);
    expect(objs.map((o) => o.type === 'state' ? `${o.state}/${o.reason}` : o.type)).toEqual(['job', 'running/started', 'done/exit']);
  });
});
