/**
 * `nightshift logs` prints what a job printed (its recording, as text),
 * with or without a daemon, and a failure's page points to it; `prune`
 * removes old finished jobs' board rows and folders. Real daemons, real jobs.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { readBoardFile, testScopes, waitUntil } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;
const SECRET = 'sk-live-0123456789abcdef';
const NO_STATE_ENV = { NIGHTSHIFT_STATE: undefined };
const webhookConfig = (url: string) => ['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${url}" }`, ''].join('\n');

/** Prints lines, rewrites a progress line in place, prints its secret, fails. */
const FAILING = [
  'bash', '-c',
  'for i in 1 2 3 4 5 6; do echo "out $i"; done; printf "\\e[32mfetch\\e[0m 10%%\\rfetch 50%%\\rfetch 100%%\\n"; echo "key $API_KEY"; echo boom >&2; exit 3',
];
const OUTPUT = ['out 1', 'out 2', 'out 3', 'out 4', 'out 5', 'out 6', 'fetch 100%', 'key [redacted]', 'boom'];

function pageStatuses(state: string, job: string): string[] {
  const db = new Sqlite(join(state, 'board.sqlite'), { readonly: true });
  try {
    return db.prepare<[string], { status: string }>('SELECT status FROM notify_outbox WHERE job = ?').all(job).map((r) => r.status);
  } finally {
    db.close();
  }
}

const lines = (s: string) => s.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);

describe('logs: the job\'s output', () => {
  it('prints a finished job\'s output as text, redacted, not event lines; --lines N the last N; --events the old lines; the failure page points to it; no daemon needed', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const d = await h.daemon(h.stateDir(webhookConfig(srv.url('/hook'))));
    await d.submit('fail', FAILING, ['--env', `API_KEY=${SECRET}`]);
    await d.waitState('fail', 'done', 'exit', SOON);

    const all = await d.ns('logs', ['fail']);
    expect(all.code, all.stderr).toBe(0);
    expect(lines(all.stdout)).toEqual(OUTPUT);
    expect(all.stdout).not.toContain(SECRET);

    const last = await d.ns('logs', ['fail', '--lines', '3']);
    expect(lines(last.stdout)).toEqual(OUTPUT.slice(-3));

    const events = await d.ns('logs', ['fail', '--events']);
    expect(events.code, events.stderr).toBe(0);
    expect(events.stdout).toMatch(/ info {2}job started /);
    expect(events.stdout).not.toContain('out 1');

    // The failure's page says which command shows it, and that command prints the failure.
    const [hit] = await srv.waitHits('/hook', 1, SOON);
    const page = JSON.parse(hit!.body) as { kind: string; answer_command: string };
    expect(page.kind).toBe('failed');
    expect(page.answer_command).toBe(`nightshift logs --state ${d.state} fail --lines 40`);
    const fromPage = await runCli(page.answer_command.split(' ').slice(1), { env: NO_STATE_ENV });
    expect(lines(fromPage.stdout)).toEqual(OUTPUT);

    // The recording is on disk: with the daemon gone, the same.
    await d.stop();
    const after = await d.ns('logs', ['fail', '--lines', '2']);
    expect(after.code, after.stderr).toBe(0);
    expect(lines(after.stdout)).toEqual(OUTPUT.slice(-2));
    const none = await d.ns('logs', ['nosuch']);
    expect(none.code).toBe(2);
    expect(none.stderrLines).toEqual([`nightshift: no job "nosuch" in ${d.state}; nightshift board lists them`]);
  }, 90_000);

  it('-f follows a job as it prints and returns when it ends', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('ticks', ['bash', '-c', 'for i in 1 2 3 4 5; do echo "tick $i"; sleep 1; done']);
    const follow = startCli(['logs', 'ticks', '-f', '--state', d.state], { env: NO_STATE_ENV });
    const first = await waitUntil(() => follow.stdout.includes('tick 1') && follow.stdout, SOON, 'logs -f to print the first line');
    // Printed as it came, not all at the end.
    expect(first).not.toContain('tick 5');
    expect(await follow.waitExit(SOON)).toEqual({ code: 0, signal: null });
    expect(lines(follow.stdout)).toEqual(['tick 1', 'tick 2', 'tick 3', 'tick 4', 'tick 5']);
    expect((await d.jobs()).find((j) => j.name === 'ticks')?.state).toBe('done');
  }, 90_000);

  it('prints a `nightshift run` job\'s output by its name', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const run = await runCli(['run', '--state', state, '--name', 'solo', '--quiet', '--', 'bash', '-c', 'echo alone; echo here'], { env: NO_STATE_ENV });
    expect(run.code, run.stderr).toBe(0);
    const r = await runCli(['logs', 'solo', '--state', state], { env: NO_STATE_ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual(['alone', 'here']);
  }, 60_000);
});

describe('prune: old finished jobs leave the board and their folders', () => {
  it('--dry-run lists without removing; prune removes done jobs\' rows and folders and closes their pages, never a running one; with no daemon, on the file', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const d = await h.daemon(h.stateDir(webhookConfig(srv.url('/hook'))));
    const bare = await d.ns('prune', ['--older-than', '14']);
    expect(bare.code).toBe(2);
    expect(bare.stderrLines).toEqual([expect.stringMatching(/--older-than.*'14'.*give a unit, e\.g\. 14d/)]);

    await d.submit('ok', ['echo', 'fine']);
    await d.submit('bad', ['bash', '-c', 'exit 1']);
    await d.submit('keep', ['sleep', '120']);
    const ok = await d.waitState('ok', 'done', 'exit', SOON);
    const bad = await d.waitState('bad', 'done', 'exit', SOON);
    const keep = await d.waitState('keep', 'running', undefined, SOON);
    await srv.waitHits('/hook', 1, SOON);
    const dirs = [ok.paths!.dir, bad.paths!.dir];

    type Pruned = { dry_run: boolean; jobs: { name: string; bytes: number; dir: string }[]; bytes: number };
    const dry = await waitUntil(async () => {
      const r = await d.ns('prune', ['--older-than', '1s', '--dry-run', '--json']);
      const out = JSON.parse(r.stdout) as Pruned;
      return out.jobs.length === 2 && out;
    }, SOON, 'both done jobs to be over 1s old');
    expect(dry.dry_run).toBe(true);
    expect(dry.jobs.map((j) => j.name)).toEqual(['ok', 'bad']);
    expect(dry.bytes).toBeGreaterThan(0);
    expect(dirs.every((p) => existsSync(p))).toBe(true);
    // The board lists in attention order (the running job first, then the done ones newest first): nothing removed yet.
    expect((await d.jobs()).map((j) => j.name)).toEqual(['keep', 'bad', 'ok']);
    const human = await d.ns('prune', ['--older-than', '1s', '--dry-run']);
    expect(human.stdout).toMatch(/^would remove 2 jobs, freeing \S+ \(dry run: nothing removed\):\n {2}ok /);

    const done = await d.ns('prune', ['--older-than', '1s', '--json']);
    expect(done.code, done.stderr).toBe(0);
    const out = JSON.parse(done.stdout) as Pruned;
    expect(out.jobs.map((j) => j.name)).toEqual(['ok', 'bad']);
    expect(dirs.some((p) => existsSync(p))).toBe(false);
    expect((await d.jobs()).map((j) => j.name)).toEqual(['keep']);
    expect(existsSync(keep.paths!.dir)).toBe(true);
    expect((await d.ns('logs', ['ok'])).code).toBe(2);
    // The failure's page is closed with its job: nothing re-pages about a job that is gone.
    expect(pageStatuses(d.state, bad.id)).toEqual(['resolved']);

    // No daemon: the board file itself, under the daemon's lock.
    await d.ns('cancel', ['keep']);
    await d.waitState('keep', 'done', 'cancelled', SOON);
    await d.stop();
    const gone = await waitUntil(async () => {
      const r = await d.ns('prune', ['--older-than', '1s']);
      return r.stdout.startsWith('removed 1 job') && r;
    }, SOON, 'prune with no daemon to remove the cancelled job');
    expect(gone.stdout).toContain(' keep ');
    expect(existsSync(keep.paths!.dir)).toBe(false);
    expect(readBoardFile(d.state).jobs).toEqual([]);
    expect(existsSync(d.lock)).toBe(false);
  }, 90_000);
});
