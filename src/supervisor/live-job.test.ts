/**
 * LiveJob's start is all or nothing, with a real PTY: a step
 * that fails after the child was spawned releases everything already taken.
 * An owner's sink that throws is reported and the job runs to its end.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_WATCHDOG } from '../core/watchdog-types.js';
import { loadBundle } from '../rules/bundle.js';
import { fixedBundle } from '../rules/live-bundle.js';
import { RULES_DIR } from '../../test/helpers/rules.js';
import { until } from '../../test/helpers/until.js';
import { createJobDir } from './job-dir.js';
import { LiveJob } from './live-job.js';

const tmp = mkdtempSync(join(tmpdir(), 'ns-live-job-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Alive and not a zombie (a reaped child's pid is gone from /proc). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};
const openFds = () => readdirSync('/proc/self/fd').length;

describe('LiveJob.start', () => {
  it('a start that fails after the spawn (the event file cannot be opened) kills the child and closes the recording and log', async () => {
    const bundle = fixedBundle(await loadBundle(RULES_DIR, null));
    const paths = { ...createJobDir(tmp, 'j-fail'), events: join(tmp, 'no-such-dir', 'events.jsonl') };
    const before = openFds();
    const spawned: number[] = [];
    const err = await LiveJob.start(
      { command: 'sleep', args: ['30'], cwd: tmp, env: process.env as Record<string, string>, cols: 80, rows: 24 },
      { paths, bundle, config: DEFAULT_WATCHDOG, onTransition: (t) => t.to === 'running' && spawned.push(1) },
    ).catch((e: unknown) => e);
    expect(String(err)).toMatch(/ENOENT.*no-such-dir/);
    expect(spawned).toEqual([1]);
    // The child is gone (its pid is in the job's log), and the job's files are closed again (the PTY's fd included).
    const started = readFileSync(paths.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; pid?: number });
    const pid = started.find((l) => l.msg === 'job started')!.pid!;
    expect(pid).toBeGreaterThan(0);
    await until(() => !alive(pid) || undefined, 5_000, `the child ${pid} to die`);
    await until(() => (openFds() <= before ? true : undefined), 5_000, `open fds back to ${before} (now ${openFds()})`);
  });
});

describe('a sink that throws', () => {
  it('is reported, the sinks after it still get every event, and the job runs to its exit', async () => {
    const bundle = fixedBundle(await loadBundle(RULES_DIR, null));
    const paths = createJobDir(tmp, 'j-sink-throws');
    const problems: string[] = [];
    const states: string[] = [];
    let output = '';
    const job = await LiveJob.start(
      { command: 'sh', args: ['-c', 'printf "still here\\n"; exit 3'], cwd: tmp, env: process.env as Record<string, string>, cols: 80, rows: 24 },
      {
        paths,
        bundle,
        config: DEFAULT_WATCHDOG,
        sinks: [{ name: 'pages', event: () => { throw new Error('pager refused'); } }],
        onProblem: (p) => problems.push(p),
        onTransition: (t) => states.push(t.to),
        onOutput: (d) => (output += d.toString()),
      },
    );
    const exit = await job.finished;
    expect(exit.exitCode).toBe(3);
    expect(output).toContain('still here');
    expect(states[0]).toBe('running');
    expect(states.at(-1)).toBe('done');
    expect(job.state).toBe('done');
    // Said once per kind of event, in the job's log and to its owner.
    expect(problems).toContain('job j-sink-throws: the pages sink failed on transition (pager refused); the job goes on');
    expect(problems).toContain('job j-sink-throws: the pages sink failed on output (pager refused); the job goes on');
    expect(problems.filter((p) => p.includes('on transition'))).toHaveLength(1);
    const logged = readFileSync(paths.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; sink?: string });
    expect(logged.some((l) => l.sink === 'pages' && l.msg.startsWith('a sink failed'))).toBe(true);
  });
});

describe("a job's news as events", () => {
  it('a file the job cannot write reaches the sinks as a disk event, once, and the owner\'s onDiskProblem still hears it', async () => {
    const bundle = fixedBundle(await loadBundle(RULES_DIR, null));
    const paths = { ...createJobDir(tmp, 'j-disk'), summary: join(tmp, 'no-such-dir', 'summary.json') };
    const seen: string[] = [];
    const told: string[] = [];
    const job = await LiveJob.start(
      { command: 'sh', args: ['-c', 'printf "a\\n"; sleep 0.2; printf "b\\n"'], cwd: tmp, env: process.env as Record<string, string>, cols: 80, rows: 24 },
      {
        paths,
        bundle,
        config: DEFAULT_WATCHDOG,
        sinks: [{ event: (e) => e.kind === 'disk' && seen.push(`${e.file}: ${e.error.message}`) }],
        onDiskProblem: (file) => told.push(file),
      },
    );
    expect((await job.finished).exitCode).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^summary\.json: ENOENT/);
    expect(told).toEqual(['summary.json']);
  });
});


describe("a person's acts, given whole", () => {
  it('job.acts records each act as the person\'s before it reaches the job, and cancel settles with the job\'s exit', async () => {
    const bundle = fixedBundle(await loadBundle(RULES_DIR, null));
    const paths = createJobDir(tmp, 'j-acts');
    let output = '';
    const job = await LiveJob.start(
      { command: 'cat', args: [], cwd: tmp, env: process.env as Record<string, string>, cols: 80, rows: 24 },
      { paths, bundle, config: DEFAULT_WATCHDOG, onOutput: (d) => (output += d.toString()) },
    );
    job.acts.resumed('bob', 'j-old');
    await job.acts.send('hello', true, 'ann');
    await until(() => output.includes('hello') || undefined, 5_000, 'cat to echo the line');
    job.acts.key('enter', 'ann');
    const exit = await job.acts.cancel('carl');
    expect(exit).toBe(await job.finished);
    expect(job.reason.code).toBe('cancelled');
    const people = readFileSync(paths.evidence, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.type === 'person');
    expect(people.map((e) => `${String(e.action)} ${String(e.by)}`)).toEqual(['resume human:bob', 'send human:ann', 'key human:ann', 'cancel human:carl']);
    expect(people[0]).toMatchObject({ from: 'j-old' });
  });
});
