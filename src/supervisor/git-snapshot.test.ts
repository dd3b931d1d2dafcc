import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedPaths, parsePorcelain, readGitStatus, SnapshotCoalescer, workTreeOf, type GitSnapshot } from './git-snapshot.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A `take` whose runs the test finishes by hand, counting how many run at once. */
function manualGit() {
  const runs: { cwd: string; finish: (s: GitSnapshot) => void }[] = [];
  let live = 0;
  let most = 0;
  const take = (cwd: string) =>
    new Promise<GitSnapshot>((resolve) => {
      most = Math.max(most, ++live);
      runs.push({ cwd, finish: (s) => (live--, resolve(s)) });
    });
  return { runs, take, most: () => most };
}

const tick = () => new Promise((r) => setImmediate(r));
const snap = (n: number) => new Map([[`f${n}`, '??']]);

describe('SnapshotCoalescer', () => {
  it('runs one git status per folder at a time; requests during a run share the next one, which starts after it', async () => {
    const git = manualGit();
    const c = new SnapshotCoalescer(git.take, { keyOf: (cwd) => cwd.replace(/\/+$/, '') });
    const first = c.snapshot('/r');
    const during = [c.snapshot('/r'), c.snapshot('/r/'), c.snapshot('/r')];
    await tick();
    expect(git.runs).toHaveLength(1);
    git.runs[0]!.finish(snap(1));
    expect(await first).toEqual(snap(1));
    await tick();
    expect(git.runs).toHaveLength(2);
    git.runs[1]!.finish(snap(2));
    expect(await Promise.all(during)).toEqual([snap(2), snap(2), snap(2)]);
    expect(git.most()).toBe(1);
    await tick();
    expect(c.busy).toBe(0);
  });

  it('a caller asking again as soon as its snapshot arrives gets a fresh run, never a second one alongside', async () => {
    const git = manualGit();
    const c = new SnapshotCoalescer(git.take, { keyOf: (cwd) => cwd });
    const waiting = c.snapshot('/r').then(() => c.snapshot('/r'));
    void c.snapshot('/r');
    await tick();
    git.runs[0]!.finish(snap(1));
    await tick();
    git.runs[1]!.finish(snap(2));
    await tick();
    expect(git.runs).toHaveLength(3);
    git.runs[2]!.finish(snap(3));
    expect(await waiting).toEqual(snap(3));
    expect(git.most()).toBe(1);
  });

  it('folders do not wait for each other, and a failing run is an unknown snapshot', async () => {
    const c = new SnapshotCoalescer(async (cwd) => {
      if (cwd === '/bad') throw new Error('boom');
      return snap(1);
    });
    expect(await Promise.all([c.snapshot('/bad'), c.snapshot('/good')])).toEqual([null, snap(1)]);
  });

  it('runs at most `concurrency` work trees at once, the others in the order they were asked for', async () => {
    const git = manualGit();
    const c = new SnapshotCoalescer(git.take, { keyOf: (cwd) => cwd, concurrency: 2 });
    const all = ['/a', '/b', '/c', '/d', '/e'].map((cwd) => c.snapshot(cwd));
    await tick();
    expect(git.runs.map((r) => r.cwd)).toEqual(['/a', '/b']);
    git.runs[1]!.finish(snap(2));
    await tick();
    expect(git.runs.map((r) => r.cwd)).toEqual(['/a', '/b', '/c']);
    for (let i = 0; i < 5; i++) {
      git.runs[i]!.finish(snap(i));
      await tick();
    }
    expect(await Promise.all(all)).toEqual([snap(0), snap(2), snap(2), snap(3), snap(4)]);
    expect(git.most()).toBe(2);
  });

  it('joins runs in the order snapshots were asked for, however long each folder takes to resolve', async () => {
    const git = manualGit();
    let resolveSlow!: () => void;
    const slow = new Promise<void>((r) => (resolveSlow = r));
    const slowFirst = async (cwd: string) => {
      if (cwd === '/r/slow') await slow;
      return '/r';
    };
    const c = new SnapshotCoalescer(git.take, { keyOf: slowFirst });
    const start = c.snapshot('/r/slow');
    const end = c.snapshot('/r/fast');
    await tick();
    // The second folder resolved at once, but waits for the first: it must not start a run the first then joins.
    expect(git.runs).toHaveLength(0);
    resolveSlow();
    await tick();
    expect(git.runs).toHaveLength(1);
    git.runs[0]!.finish(snap(1));
    expect(await start).toEqual(snap(1));
    await tick();
    git.runs[1]!.finish(snap(2));
    expect(await end).toEqual(snap(2));
  });
});

describe('workTreeOf', () => {
  it('is the nearest folder up holding .git, and the folder itself outside any work tree', async () => {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'ns-git-')));
    temps.push(top);
    mkdirSync(join(top, 'repo', 'a', 'b'), { recursive: true });
    expect(await workTreeOf(join(top, 'repo', 'a'))).toBe(join(top, 'repo', 'a'));
    execFileSync('git', ['init', '-q'], { cwd: join(top, 'repo') });
    expect(await workTreeOf(join(top, 'repo', 'a', 'b'))).toBe(join(top, 'repo'));
    // A submodule or a linked worktree marks its top with a .git file.
    writeFileSync(join(top, 'repo', 'a', '.git'), 'gitdir: elsewhere\n');
    expect(await workTreeOf(join(top, 'repo', 'a', 'b'))).toBe(join(top, 'repo', 'a'));
  });

  it('gives folders of one repository the snapshot git status in either would give, three asked at once from two runs', async () => {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'ns-git-')));
    temps.push(top);
    mkdirSync(join(top, 'one'));
    mkdirSync(join(top, 'two'));
    execFileSync('git', ['init', '-q'], { cwd: top });
    writeFileSync(join(top, 'one', 'x.txt'), 'x');
    writeFileSync(join(top, 'two', 'y.txt'), 'y');
    const ran: string[] = [];
    const c = new SnapshotCoalescer(async (cwd) => (ran.push(cwd), readGitStatus(cwd)));
    const [one, two, again] = await Promise.all([c.snapshot(join(top, 'one')), c.snapshot(join(top, 'two')), c.snapshot(join(top, 'one'))]);
    // The first run, then one run shared by the two asked while it ran.
    expect(ran).toEqual([top, top]);
    expect(one).toEqual(two);
    expect(again).toEqual(two);
    expect(one).toEqual(await readGitStatus(join(top, 'two')));
    expect(one).toEqual(new Map([['one/x.txt', '??'], ['two/y.txt', '??']]));
  });
});

describe('readGitStatus', () => {
  it('reads a real work tree without blocking, and is null outside one', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ns-git-'));
    temps.push(cwd);
    expect(await readGitStatus(cwd)).toBeNull();
    execFileSync('git', ['init', '-q'], { cwd });
    writeFileSync(join(cwd, 'new.txt'), 'x');
    // A git status that takes 0.5 s or more (its fsmonitor hook sleeps, then fails, and git scans as usual):
    // a fast one's reply can reach the thread in the same turn of the loop as the request, before any
    // setImmediate, however free the thread was (the check failed that way once in CI).
    const hook = join(cwd, '.git', 'slow-fsmonitor');
    writeFileSync(hook, '#!/bin/sh\nsleep 0.5\nexit 1\n', { mode: 0o755 });
    execFileSync('git', ['config', 'core.fsmonitor', hook], { cwd });
    let ticked = false;
    setImmediate(() => (ticked = true));
    const s = await readGitStatus(cwd);
    expect(ticked).toBe(true);
    expect(s).toEqual(new Map([['new.txt', '??']]));
    expect(changedPaths(new Map(), s)).toEqual(['new.txt']);
  });

  it('parses porcelain lines into path → code', () => {
    expect(parsePorcelain(' M a.ts\n?? b/c.ts\n\n')).toEqual(new Map([['a.ts', ' M'], ['b/c.ts', '??']]));
  });
});
