/**
 * Issue 8, point 7: the daemon's config.yaml. Real `nightshift daemon`
 * processes on private state dirs (test/helpers/daemon.ts). A misspelt key
 * anywhere is refused at start (exit 2, one `nightshift: FILE:LINE:` line,
 * no daemon); the start-up line says which notifiers loaded; an `env:` or
 * `file:` credential that cannot be resolved is a start-up warning, and the
 * daemon still starts and pages with what works.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { daemonLog, expectInputError, FAST, testScopes } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 15_000;

/** Starts a daemon that is expected to refuse its config. */
const refusedStart = (state: string) => runCli(['daemon', '--state', state, ...FAST], { ms: 15_000, env: { NIGHTSHIFT_STATE: undefined } });


describe('daemon: config.yaml is checked whole', () => {
  it.for<[string, string[], number, RegExp]>([
    ['a misspelt top-level section (notifyy:)', ['# paging', 'notifyy:', '  notifiers:', '    - { kind: webhook, url: "http://127.0.0.1:9/hook" }'], 2, /notifyy: unknown section/],
    ['an unknown top-level key beside notify:', ['notify:', '  notifiers: []', 'pager: on'], 3, /pager: unknown section/],
    ['an unknown key inside a notifier', ['notify:', '  notifiers:', '    - kind: webhook', '      url: "http://127.0.0.1:9/hook"', '      methd: PUT'], 5, /notify\.notifiers\.0\.methd: Unrecognized key/],
    ['an unknown key under quiet_hours', ['notify:', '  quiet_hours:', '    start: "22:00"', '    end: "07:00"', '    urgnt: [prompt]'], 5, /notify\.quiet_hours\.urgnt: Unrecognized key/],
    ['an unknown key under pages:', ['pages:', '  sent: [prompt]'], 2, /pages\.sent: Unrecognized key/],
    ['an unknown page kind', ['pages:', '  send: [prompt, fire]'], 2, /pages\.send\.1: "fire" is not a page kind/],
    ['a public_url in plain http to another machine (page links carry login codes)', ['notify:', '  public_url: http://ns.example.com'], 2, /notify\.public_url: "http:\/\/ns\.example\.com" is plain http to another machine/],
  ])('refuses %s: exit 2, one FILE:LINE line, no daemon left behind', { timeout: 30_000 }, async ([, lines, line, problem]: [string, string[], number, RegExp], ctx: TestContext) => {
    const h = scope(ctx);
    const state = h.stateDir([...lines, ''].join('\n'));
    const r = await refusedStart(state);
    expectInputError(r, new RegExp(`^nightshift: ${join(state, 'config.yaml')}:${line}: ${problem.source}`));
    expect(existsSync(join(state, 'run', 'daemon.lock'))).toBe(false);
    expect(existsSync(join(state, 'run', 'nightshift.sock'))).toBe(false);
  });
});

describe('daemon: the start-up line says who will be paged', () => {
  it('no config: "notifiers: none — nobody will be paged" on stderr and in the log', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const d = await h.daemon(state);
    const start = d.proc.stderrLines.find((l) => l.startsWith('nightshift daemon: pid '))!;
    expect(start).toMatch(/, notifiers: none — nobody will be paged$/);
    await d.stop();
    expect(daemonLog(state).find((l) => l.msg === 'daemon started')).toMatchObject({ notifiers: 'none — nobody will be paged' });
  }, 30_000);

  it('lists the notifiers that loaded; env:UNSET_VAR and an unreadable file: are start-up warnings naming them; the daemon starts and pages through the rest', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const state = h.stateDir(
      [
        'notify:',
        '  repage_after: off',
        '  notifiers:',
        `    - { kind: webhook, name: hook1, url: "${srv.url('/hook')}" }`,
        '    - { kind: webhook, url: "env:UNSET_VAR" }',
        `    - { kind: ntfy, url: "${srv.url('/topic')}", token: "file:missing-ntfy-token" }`,
        '',
      ].join('\n'),
    );
    const d = await h.daemon(state, [], { UNSET_VAR: undefined });
    const lines = d.proc.stderrLines;
    const startAt = lines.findIndex((l) => l.startsWith('nightshift daemon: pid '));
    expect(lines[startAt]).toMatch(/, notifiers: webhook\(hook1\), webhook, ntfy$/);
    // The warnings come first, one line each, naming the notifier and the reference (never a value).
    expect(lines.slice(0, startAt)).toEqual([
      'nightshift daemon: warning: notifier webhook: env:UNSET_VAR is not set',
      `nightshift daemon: warning: notifier ntfy: cannot read credential file ${join(state, 'missing-ntfy-token')} (ENOENT)`,
    ]);

    // It runs and pages: the working notifier delivers.
    await d.submit('ask', ['bash', '-c', 'read -p "Continue? [y/N] " a']);
    await d.waitState('ask', 'blocked', 'prompt', SOON);
    await srv.waitHits('/hook', 1, SOON);
    await d.stop();

    const log = daemonLog(state);
    expect(log.filter((l) => l.msg === 'start-up warning').map((l) => l.warning)).toEqual([
      'notifier webhook: env:UNSET_VAR is not set',
      `notifier ntfy: cannot read credential file ${join(state, 'missing-ntfy-token')} (ENOENT)`,
    ]);
    expect(log.find((l) => l.msg === 'daemon started')).toMatchObject({ notifiers: 'webhook(hook1), webhook, ntfy' });
  }, 60_000);
});
