/**
 * Watch modes and menus with a status line under `nightshift run`, with real
 * programs: vitest --watch in a temp project is blocked `parked` (paged once,
 * never answered); a curses menu with a blinking marker and a timer under its
 * hint footer is blocked `unknown-dialog`; `top` and `watch` never block.
 * Needs a build first (npm run build).
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCast } from '../../src/record/cast-reader.js';
import { cleanup, readJsonl, ROOT, startCli, tempDir, type JsonLine } from '../helpers/cli.js';
import { testScopes } from '../helpers/daemon.js';

afterEach(cleanup);

const isBlocked = (o: JsonLine) => o.type === 'state' && o.state === 'blocked';
const ms = (a: JsonLine, b: JsonLine) => Date.parse(String(b.time)) - Date.parse(String(a.time));

function run(command: string[], o: { cwd?: string; timeout?: string } = {}) {
  const state = tempDir();
  const args = ['run', '--json', '--quiet', '--state', state, '--cols', '100', '--rows', '30', '--timeout', o.timeout ?? '60s', '--', ...command];
  return startCli(args, o.cwd ? { cwd: o.cwd } : {});
}

/** A project with one passing test, vitest from this repository's node_modules. */
function vitestProject(dir = tempDir('ns-vitest-')): string {
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"name":"parked","type":"module","private":true}\n');
  writeFileSync(join(dir, 'a.test.js'), "import { test, expect } from 'vitest';\ntest('one', () => expect(1).toBe(1));\n");
  return dir;
}

const VITEST_WATCH = [process.execPath, join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), '--watch'];

const CURSES_MENU = [
  'import curses, time',
  'def main(s):',
  '    curses.curs_set(0)',
  '    s.timeout(500)',
  '    start, on = time.time(), True',
  '    while True:',
  '        s.addstr(0, 0, "Pick a task")',
  '        for i, name in enumerate(["build", "test", "deploy"]):',
  '            s.addstr(2 + i, 0, ("❯ " if i == 0 else "  ") + name)',
  '        s.addstr(6, 0, "↑/↓ move · enter select · q quit")',
  '        s.addstr(7, 0, ("◆" if on else " ") + " waiting · %ds  " % int(time.time() - start))',
  '        s.refresh()',
  '        on = not on',
  '        if s.getch() == ord("q"): break',
  'curses.wrapper(main)',
].join('\n');

describe('parked jobs and menus with a status line, live', () => {
  it('vitest --watch in a temp project: blocked parked (vitest), escalated once, nothing typed', async () => {
    const p = run(VITEST_WATCH, { cwd: vitestProject() });
    await p.waitForJson((o) => o.type === 'state' && o.state === 'running', 10_000, 'running');
    const blocked = await p.waitForJson(isBlocked, 45_000, 'blocked');
    expect(blocked).toMatchObject({ reason: 'parked', detail: 'vitest' });
    const action = await p.waitForJson((o) => o.type === 'action', 5_000, 'the escalation');
    expect(action).toMatchObject({ kind: 'escalate', reason: 'parked', text: 'vitest is watching for changes and will never end by itself' });
    p.child.kill('SIGTERM');
    await p.waitExit(15_000);
    const lines = p.jsonLines();
    expect(lines.filter((o) => o.type === 'action').map((o) => o.kind)).toEqual(['escalate']);
    const dir = lines[0]!.dir as string;
    const cast = await readCast(join(dir, 'recording.cast'));
    // Nothing was typed into it before the stop's Ctrl-C.
    expect(cast.events.filter((e) => e.code === 'i')).toEqual([]);
    expect(readJsonl(join(dir, 'evidence.jsonl')).filter((e) => e.type === 'prompt')).toMatchObject([{ decision: 'escalate', reason: 'parked' }]);
  }, 70_000);

  it('a curses menu with a blinking marker and a timer under its hint footer: blocked unknown-dialog (menu) within 5 s', async () => {
    const p = run(['python3', '-c', CURSES_MENU], { timeout: '30s' });
    const started = await p.waitForJson((o) => o.type === 'state' && o.state === 'running', 10_000, 'running');
    const blocked = await p.waitForJson(isBlocked, 15_000, 'blocked');
    expect(blocked).toMatchObject({ reason: 'unknown-dialog', detail: 'menu' });
    expect(ms(started, blocked)).toBeLessThanOrEqual(5_000);
    const action = await p.waitForJson((o) => o.type === 'action', 5_000, 'the escalation');
    expect(String(action.prompt)).toBe('Pick a task\n❯ build\ntest\ndeploy\n↑/↓ move · enter select · q quit');
    p.child.kill('SIGTERM');
    await p.waitExit(15_000);
    expect(p.jsonLines().filter((o) => o.type === 'action' && o.kind === 'answer')).toEqual([]);
  }, 40_000);

  it.each([
    ['top', ['top', '-d', '0.5']],
    ['watch -n 0.5 date', ['watch', '-n', '0.5', 'date']],
  ])('must not fire: %s runs to its timeout and is never blocked', async (_name, command) => {
    const p = run(command, { timeout: '15s' });
    await p.waitExit(40_000);
    const states = p.jsonLines().filter((o) => o.type === 'state');
    expect(states.filter(isBlocked)).toEqual([]);
    expect(states.at(-1)).toMatchObject({ state: 'done', reason: 'timeout' });
  }, 50_000);
});

const scope = testScopes();

describe('a parked job under the daemon', () => {
  it('vitest --watch: blocked parked, paged once in words with cancel and send q, not re-paged; send q ends it with exit 0', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const d = await s.daemon(s.stateDir(`notify:\n  repage_after: 2s\n  notifiers:\n    - { kind: webhook, url: "${hooks.url('/hook')}" }\n`));
    await d.submit('watch', VITEST_WATCH, ['--cwd', vitestProject(s.tempDir('ns-vitest-'))]);
    const blocked = await d.waitState('watch', 'blocked', 'parked', 60_000);
    expect(blocked.reason).toMatchObject({ code: 'parked', detail: 'vitest' });
    const [hit] = await hooks.waitHits('/hook', 1, 20_000);
    const page = JSON.parse(hit!.body) as { kind: string; prompt: string; commands: string[]; urgent: boolean };
    expect(page).toMatchObject({ kind: 'parked', urgent: false, prompt: 'vitest is watching for changes and will never end by itself' });
    expect(page.commands.slice(0, 2)).toEqual([expect.stringMatching(/^nightshift cancel .*watch$/), expect.stringMatching(/^nightshift send .*watch q$/)]);
    // repage_after is 2 s: a few rounds go by, and still one page.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(hooks.on('/hook')).toHaveLength(1);
    expect((await d.ns('send', ['watch', 'q'])).code).toBe(0);
    const done = await d.waitState('watch', 'done', 'exit', 30_000);
    expect(done.exit).toEqual({ code: 0, signal: null });
  }, 120_000);
});

