/**
 * Issue 10.1, "other programs": a plain program that reports its tool calls
 * through its event file gets the probes with `--agent generic`; its loop
 * is escalated and binds: the job is blocked on the probe and, with no
 * interrupt key to press, its foreground process group is stopped (SIGSTOP)
 * until a person continues it (SIGCONT). Real daemon, real bash, real /proc.
 * Needs a build first.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readJsonl, startCli } from '../helpers/cli.js';
import { sr, testScopes, waitUntil } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;

// The same failing call again and again, one every 0.2 s, each line counted on screen.
const LOOP = [
  'i=0',
  'while true; do',
  '  i=$((i+1))',
  '  printf \'{"type":"tool_start","name":"Bash","id":"t%s","args":{"command":"cat missing.txt"}}\\n\' "$i" >> "$NIGHTSHIFT_EVENTS"',
  '  printf \'{"type":"tool_end","name":"Bash","id":"t%s","ok":false}\\n\' "$i" >> "$NIGHTSHIFT_EVENTS"',
  '  echo "attempt $i"',
  '  sleep 0.2',
  'done',
].join('\n');

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
/** The process state letter in /proc/PID/stat: T is stopped. */
const procState = (pid: number) => /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];

describe('issue 10.1: a program without an interrupt key is paused on an escalation', () => {
  it('blocked on probe:…, SIGSTOP (no more events, state T); continue → SIGCONT, running again; cancel ends it at once', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir());
    await d.submit('looper', ['bash', '-c', LOOP], ['--agent', 'generic']);
    const blocked = await d.waitJob('looper', (j) => j.state === 'blocked' && j.reason.code.startsWith('probe:'), SOON, 'blocked on a probe');
    expect(blocked.reason.code).toMatch(/^probe:repeated-(?:action|failure)$/);
    const events = blocked.paths!.events;

    const bind = await waitUntil(() => readJsonl(blocked.paths!.evidence).find((e) => e.type === 'bind'), SOON, 'the bind record');
    expect(bind).toMatchObject({ action: 'pause', agent: 'generic' });
    const group = Number(bind.group);
    await waitUntil(() => procState(group) === 'T' || undefined, SOON, 'the loop stopped (state T)');
    const stoppedAt = lines(events);
    // Stopped means stopped: no event for a second and a half (the loop writes 10 a second).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(lines(events)).toBe(stoppedAt);

    const cont = await d.ns('continue', ['looper'], { NIGHTSHIFT_USER: 'ann' });
    expect(cont.code).toBe(0);
    // Running again (it may be caught, and paused, again soon after: the loop goes on).
    await waitUntil(() => lines(events) > stoppedAt + 4 || undefined, SOON, 'the loop running again');
    const evidence = readJsonl(blocked.paths!.evidence);
    expect(evidence.filter((e) => e.type === 'person')).toMatchObject([{ action: 'continue', by: 'human:ann' }]);
    expect(evidence.filter((e) => e.type === 'bind').map((e) => e.action)).toContain('resume');

    const started = Date.now();
    await d.ns('cancel', ['looper'], { NIGHTSHIFT_USER: 'bob' });
    const done = await d.waitState('looper', 'done', undefined, SOON);
    expect(sr(done)).toBe('done/cancelled');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(readJsonl(blocked.paths!.evidence).filter((e) => e.type === 'person').map((e) => `${e.action} ${e.by}`)).toEqual(['continue human:ann', 'cancel human:bob']);
  }, 60_000);

  it('a line a person types into the attached job ends the probe\'s block as send does (human:<user>), and the paused loop runs again', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir());
    await d.submit('looper', ['bash', '-c', LOOP], ['--agent', 'generic']);
    const blocked = await d.waitJob('looper', (j) => j.state === 'blocked' && j.reason.code.startsWith('probe:'), SOON, 'blocked on a probe');
    const bind = await waitUntil(() => readJsonl(blocked.paths!.evidence).find((e) => e.type === 'bind'), SOON, 'the bind record');
    await waitUntil(() => procState(Number(bind.group)) === 'T' || undefined, SOON, 'the loop stopped');
    const att = startCli(['attach', 'looper', '--state', d.state], { env: { NIGHTSHIFT_STATE: undefined, NIGHTSHIFT_USER: 'cy' } });
    await waitUntil(() => att.stdout.includes('attempt') || undefined, SOON, 'the screen on attach');
    att.write('keep going\r');
    // The loop goes on at once, and may well be caught again: look for the move in the job's history, not its state now.
    await waitUntil(async () => (await d.show('looper')).transitions.some((t) => t.state === 'running' && t.reason.code === 'continued') || undefined, SOON, 'running again (continued)');
    const at = lines(blocked.paths!.events);
    await waitUntil(() => lines(blocked.paths!.events) > at + 4 || undefined, SOON, 'the loop running again');
    expect(readJsonl(blocked.paths!.evidence).filter((e) => e.type === 'person')).toMatchObject([{ action: 'type', by: 'human:cy' }]);
    att.write('\x1d');
    await att.waitExit(SOON);
    await d.ns('cancel', ['looper']);
    await d.waitState('looper', 'done', 'cancelled', SOON);
  }, 60_000);
});
