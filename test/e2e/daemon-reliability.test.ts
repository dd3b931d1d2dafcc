/**
 * Issue 8, points 1–4 and 11, against the real daemon: real PTYs, real
 * processes, a private state directory, socket and receiver per test.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call } from '../../src/daemon/client.js';
import { readCast } from '../../src/record/cast-reader.js';
import { readJsonl } from '../helpers/cli.js';
import { powerCut, processAlive as alive, rawSpec, readBoardFile, sr, testScopes, waitUntil, type Scope } from '../helpers/daemon.js';

const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const scope = testScopes();

const SOON = 20_000;

/** A copy of the shipped rules, plus `junk` files that make the folder slow to watch. */
function rulesCopy(s: Scope, junk = 0): string {
  const dir = join(s.tempDir('ns-rules-'), 'rules');
  cpSync(RULES, dir, { recursive: true });
  for (let i = 0; i < junk; i++) writeFileSync(join(dir, `notes-${i}.txt`), 'not a rule\n');
  return dir;
}

const submitSpec = (name: string, command: string[], cwd: string) => ({ spec: rawSpec(name, command, cwd) });

const pageConfig = (url: string, repage = '2s') => `notify:\n  repage_after: ${repage}\n  notifiers:\n    - { kind: webhook, url: "${url}" }\n`;

describe('issue 8.1: a run slot is never lost, and the daemon always stops', () => {
  it('jobs of 10 ms under --max-running 2 with a 3000-file rules folder all finish, then shutdown ends the daemon', async (ctx) => {
    const s = scope(ctx);
    const cwd = s.tempDir();
    const d = await s.daemon(s.stateDir(), ['--max-running', '2', '--rules', rulesCopy(s, 3000)]);
    const N = 24;
    for (let i = 0; i < N; i++) await call(d.state, 'submit', submitSpec(`short-${i}`, ['sleep', i % 2 ? '0.01' : '0.005'], cwd));
    const jobs = await waitUntil(
      async () => {
        const all = await d.jobs();
        return all.every((j) => j.state === 'done') ? all : undefined;
      },
      90_000,
      `all ${N} short jobs done`,
      { describe: () => d.describeBoard() },
    );
    expect(jobs.map(sr)).toEqual(Array(N).fill('done/exit'));
    expect(jobs.map((j) => j.exit)).toEqual(Array(N).fill({ code: 0, signal: null }));
    const r = await d.ns('shutdown');
    expect(r.code).toBe(0);
    expect(await d.proc.waitExit(10_000)).toEqual({ code: 0, signal: null });
  }, 150_000);

  it('shutdown --now ends the daemon within 10 s amid short jobs starting, a job that ignores Ctrl-C, SIGTERM and SIGHUP, and a blocked one', async (ctx) => {
    const s = scope(ctx);
    const cwd = s.tempDir();
    const d = await s.daemon(s.stateDir(), ['--max-running', '4', '--rules', rulesCopy(s, 3000)]);
    await d.submit('stubborn', ['bash', '-c', "trap '' INT TERM HUP; echo stubborn; while :; do sleep 0.2; done"], ['--cwd', cwd]);
    await d.submit('ask', ['bash', '-c', 'read -p "Continue? [y/N] " a'], ['--cwd', cwd]);
    await d.waitState('ask', 'blocked', 'prompt', 60_000);
    await d.waitLive('stubborn', SOON);
    for (let i = 0; i < 12; i++) await call(d.state, 'submit', submitSpec(`churn-${i}`, ['sleep', '0.01'], cwd));
    await new Promise((r) => setTimeout(r, 3_000));
    const t0 = Date.now();
    expect((await d.ns('shutdown', ['--now'])).code).toBe(0);
    expect(await d.proc.waitExit(10_000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(10_000);
    const board = readBoardFile(d.state);
    const byName = new Map(board.jobs.map((j) => [j.name, sr(j)]));
    expect([byName.get('stubborn'), byName.get('ask')]).toEqual(['done/interrupted', 'done/interrupted']);
    // Nothing is left half-way: every job is done, or still queued for the next daemon.
    expect(board.jobs.filter((j) => j.state === 'running' || j.state === 'blocked')).toEqual([]);
  }, 120_000);
});

describe('issue 8.2: after kill -9 the dead episodes are ended, not re-paged', () => {
  it('(daemon and PTY host killed) a blocked job becomes done/interrupted: its pages are resolved, one interrupted page says what it was blocked on, its files are finished', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const state = s.stateDir(pageConfig(hooks.url('/hook')));
    const d1 = await s.daemon(state);
    await d1.submit('ask', ['bash', '-c', 'echo deploying soon; read -p "Continue with the upgrade? [y/N] " a']);
    await d1.submit('work', ['bash', '-c', 'echo working; sleep 60']);
    await d1.waitState('ask', 'blocked', 'prompt', SOON);
    await d1.waitLive('work', SOON);
    await hooks.waitHits('/hook', 1, SOON);
    await powerCut(d1);

    const d2 = await s.daemon(state);
    const ask = await d2.waitState('ask', 'done', 'interrupted', SOON);
    // Interrupted's status (src/core/outcome.ts), with the signal its terminal's hang-up presumably sent.
    expect(ask.exit).toEqual({ code: 119, signal: 'SIGHUP' });
    // One page per interrupted job, saying what it was doing.
    const pages = await hooks.waitHits('/hook', 3, SOON);
    const bodies = pages.map((h) => JSON.parse(h.body) as { kind: string; name: string; state: string; prompt: string });
    const interrupted = bodies.filter((b) => b.kind === 'interrupted');
    expect(interrupted.map((b) => b.name).sort()).toEqual(['ask', 'work']);
    expect(interrupted.find((b) => b.name === 'ask')!.prompt).toMatch(/blocked.*Continue with the upgrade\? \[y\/N\]/s);
    expect(interrupted.find((b) => b.name === 'work')!.prompt).toMatch(/was running/);
    // No re-page of the dead prompt (repage_after is 2 s): wait a few rounds, count again.
    await new Promise((r) => setTimeout(r, 5_000));
    const later = hooks.on('/hook').map((h) => JSON.parse(h.body) as { kind: string; state: string });
    expect(later.filter((b) => b.kind === 'prompt')).toHaveLength(1);
    expect(later.filter((b) => b.state === 'blocked')).toHaveLength(1);
    const shown = await d2.show('ask');
    expect(shown.pages.filter((p) => p.page.kind === 'prompt').map((p) => p.status)).toEqual(['resolved']);
    // The job's own records are finished.
    const summary = JSON.parse(readFileSync(ask.paths!.summary, 'utf8')) as { state: string; reason: string; exit: unknown; ended: string | null };
    expect(summary).toMatchObject({ state: 'done', reason: 'interrupted', exit: { code: 119, signal: 'SIGHUP' } });
    expect(summary.ended).not.toBeNull();
    const cast = await readCast(ask.paths!.recording);
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:129' });
    const evidence = readJsonl(ask.paths!.evidence);
    expect(evidence.at(-1)).toMatchObject({ type: 'outcome', episode: 1, followed: 'interrupted' });
  }, 60_000);
});

describe('issue 8.2: a job that survives the daemon', () => {
  it('(daemon and PTY host killed) a job that ignores the hang-up is killed by the next daemon and says so (interrupted, SIGKILL; exit 137 in the recording), not presumed hung up', async (ctx) => {
    const s = scope(ctx);
    const state = s.stateDir();
    const d1 = await s.daemon(state);
    await d1.submit('stubborn', ['bash', '-c', "trap '' HUP INT TERM; while :; do sleep 0.2; done"]);
    const live = await d1.waitLive('stubborn', SOON);
    const pid = Number(/"pid":(\d+)/.exec(readFileSync(live.job.paths!.log, 'utf8'))![1]);
    await powerCut(d1);
    // It outlived its daemon.
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(pid)).toBe(true);
    const d2 = await s.daemon(state);
    const j = await d2.waitState('stubborn', 'done', 'interrupted', SOON);
    expect(j.exit).toEqual({ code: 119, signal: 'SIGKILL' });
    expect(j.reason.detail).toMatch(/ignored the hang-up and was killed/);
    await waitUntil(() => !alive(pid), SOON, `pid ${pid} to be gone`);
    const cast = await readCast(j.paths!.recording);
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:137' });
  }, 60_000);
});

describe('issue 8.4: one rules bundle in the daemon, reloaded live', () => {
  it('a rule added after the daemon started catches a job started after the edit; a broken edit is reported once with FILE:LINE', async (ctx) => {
    const s = scope(ctx);
    const rules = rulesCopy(s);
    const d = await s.daemon(s.stateDir(), ['--rules', rules]);
    writeFileSync(
      join(rules, 'zz-frob.yaml'),
      'version: 1\nprompts:\n  - id: frob-widget\n    class: confirm\n    match: "Frobnicate the widget <yes/no>$"\n    answer: [y, enter]\n',
    );
    await new Promise((r) => setTimeout(r, 1_500));
    await d.submit('frob', ['bash', '-c', 'printf "Frobnicate the widget <yes/no>"; read a']);
    const j = await d.waitState('frob', 'blocked', 'prompt', SOON);
    expect(j.reason).toMatchObject({ rule: 'frob-widget', class: 'confirm' });

    writeFileSync(join(rules, 'zz-frob.yaml'), 'version: 1\nprompts:\n  - id: frob-widget\n    class: confirm\n    match: "(unclosed"\n    answer: [y, enter]\n');
    const line = await d.proc.waitForLine((l) => l.includes('rules not reloaded'), SOON, 'the rejected edit on stderr');
    expect(line).toMatch(/zz-frob\.yaml:5: /);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(d.proc.stderrLines.filter((l) => l.includes('rules not reloaded'))).toHaveLength(1);
    const log = readFileSync(join(d.state, 'daemon.1.log'), 'utf8');
    expect(log.split('\n').filter((l) => l.includes('edit rejected'))).toHaveLength(1);
  }, 60_000);
});

describe('issue 8.11: failed jobs page', () => {
  it('exit ≠ 0, a start that fails and a dependency that failed each page once', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const d = await s.daemon(s.stateDir(pageConfig(hooks.url('/hook'), 'off')));
    const cwd = s.tempDir();
    await d.submit('boom', ['bash', '-c', 'echo about to fail; exit 3'], ['--cwd', cwd]);
    await d.submit('after-boom', ['echo', 'never'], ['--cwd', cwd, '--after', 'boom']);
    await d.submit('nowhere', ['no-such-program-xyz'], ['--cwd', cwd]);
    await d.waitState('boom', 'done', 'exit', SOON);
    await d.waitState('after-boom', 'done', 'dependency-failed', SOON);
    const nowhere = await d.waitState('nowhere', 'done', 'start-failed', SOON);
    expect(nowhere.reason.detail).toMatch(/command not found: no-such-program-xyz/);
    const hits = await hooks.waitHits('/hook', 3, SOON);
    const kinds = hits.map((h) => JSON.parse(h.body) as { kind: string; name: string; prompt: string });
    expect(kinds.map((k) => `${k.name}:${k.kind}`).sort()).toEqual(['after-boom:dependency-failed', 'boom:failed', 'nowhere:start-failed']);
    expect(kinds.find((k) => k.kind === 'failed')!.prompt).toMatch(/exit code 3/);
    expect(kinds.find((k) => k.kind === 'dependency-failed')!.prompt).toMatch(/boom \(exit\)/);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hooks.on('/hook')).toHaveLength(3);
  }, 60_000);
});




describe('issue 8.10: recording cap and a full disk', () => {
  it('--recording-cap keeps a marker and the tail of a flood job', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--recording-cap', '256k']);
    // It exits right after its last line: what the PTY still holds then is read, not dropped (src/pty/last-words.ts).
    await d.submit('flood', ['bash', '-c', 'for i in $(seq 1 20000); do echo "flood line $i padding-padding-padding-padding"; done; echo the-very-end']);
    const j = await d.waitState('flood', 'done', 'exit', 60_000);
    expect(j.exit).toEqual({ code: 0, signal: null });
    expect(statSync(j.paths!.recording).size).toBeLessThan(256 * 1024 + 4096);
    const cast = await readCast(j.paths!.recording);
    const markers = cast.events.filter((e) => e.code === 'm').map((e) => e.data);
    expect(markers.some((m) => m.startsWith('recording-cap:256KB'))).toBe(true);
    expect(markers).toContain('recording-tail');
    expect(markers.at(-1)).toBe('exit:0');
    const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data).join('');
    expect(out.slice(-300)).toContain('the-very-end');
  }, 90_000);

  it('a full disk: the job keeps running and ends done/exit 0, the board stays true, a disk page goes out, the recording still parses', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    // Not a Scope folder: it must be unmounted before it can be removed.
    const mnt = mkdtempSync(join(tmpdir(), 'ns-tmpfs-'));
    // A real full disk: an 8 MB tmpfs holds the state directory (needs root, as CI is).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
    try {
      const state = join(mnt, 'state');
      mkdirSync(state);
      writeFileSync(join(state, 'config.yaml'), pageConfig(hooks.url('/hook'), 'off'));
      const d = await s.daemon(state);
      const cwd = s.tempDir();
      await d.submit('flood', ['bash', '-c', "head -c 9000000 /dev/zero | tr '\\0' x | fold -w 100; echo; echo still-alive; sleep 1; echo finished"], ['--cwd', cwd]);
      const hit = await hooks.waitHits('/hook', 1, 60_000);
      const page = JSON.parse(hit[0]!.body) as { kind: string; name: string; prompt: string };
      expect(page).toMatchObject({ kind: 'disk', name: 'flood' });
      expect(page.prompt).toMatch(/recording\.cast.*ENOSPC.*keeps running/);
      const j = await d.waitState('flood', 'done', 'exit', 60_000);
      expect(j.exit).toEqual({ code: 0, signal: null });
      // Running from start to exit, never blocked; a screen of identical lines scrolling is a still one, so a
      // slow flood may be restated running while its child is busy (quiet-child-busy, then screen).
      const moves = (await d.show('flood')).transitions.map(sr);
      expect(moves.slice(0, 2)).toEqual(['queued/submitted', 'running/started']);
      expect(moves.at(-1)).toBe('done/exit');
      expect(moves.slice(2, -1).filter((m) => !m.startsWith('running/'))).toEqual([]);
      // A job started on the full disk runs too.
      await d.submit('after', ['echo', 'after-ran'], ['--cwd', cwd]);
      expect((await d.waitState('after', 'done', 'exit', SOON)).exit).toEqual({ code: 0, signal: null });
      const cast = await readCast(j.paths!.recording);
      expect(cast.events.length).toBeGreaterThan(0);
      expect(d.proc.stderrLines.some((l) => l.includes('disk full'))).toBe(true);
    } finally {
      await s.close();
      execFileSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  }, 120_000);
});
