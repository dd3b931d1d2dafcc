/**
 * The verbs a person runs before bed: `status` of a real daemon on a
 * private state directory, `doctor` on real config, policy and rules
 * files, and `page --test` through a real webhook receiver and a closed
 * port, with and without a daemon. XDG_CONFIG_HOME points into the test's
 * temp folder, so nothing of the developer's config is read.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import type { Status } from '../../src/cli/status-text.js';
import { call } from '../../src/daemon/client.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { expectInputError, testScopes, waitUntil, type CliResult, type DaemonProc, type Scope } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** Blocks at a [y/N] question until answered. */
const ASKS = ['bash', '-c', 'read -p "Proceed? [y/N] " a; echo "got:$a"'];

/** A port nothing listens on: a receiver's, once it has stopped. */
async function closedPort(h: Scope): Promise<number> {
  const s = await h.server();
  await s.stop();
  return s.port;
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** A state dir and a config folder of the test's own; `env` runs the CLI with that config folder. */
function home(h: Scope, config?: string): { state: string; env: { XDG_CONFIG_HOME: string } } {
  return { state: h.stateDir(config), env: { XDG_CONFIG_HOME: h.tempDir('ns-xdg-') } };
}

/** A daemon's `nightshift VERB --state DIR` with the test's config folder. */
const ns = (d: DaemonProc, env: Record<string, string>, verb: string, args: string[] = []): Promise<CliResult> => d.ns(verb, args, env);

describe('status', () => {
  it('with no daemon: one plain line and exit 3, nothing on stdout', async (ctx) => {
    const h = scope(ctx);
    const { state, env } = home(h);
    const r = await runCli(['status', '--state', state], { env: { ...env, NIGHTSHIFT_STATE: undefined } });
    expect(r.code).toBe(3);
    expect(r.stderrLines).toEqual([`nightshift: no daemon is running for ${state}`]);
    expect(r.stdout).toBe('');
  }, 30_000);

  it('names pid, version, config, notifiers, slots by state, queued jobs and the last page with its result', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const { state, env } = home(h, lines('notify:', '  notifiers:', `    - { kind: webhook, name: hook, url: "${srv.url('/hook')}" }`));
    const d = await h.daemon(state, ['--max-running', '1', '--screen-quiet', '10m'], env);
    await d.submit('asks', ASKS);
    await d.submit('waits', ['true']);
    await d.waitState('asks', 'blocked', undefined, SOON);
    await srv.waitHits('/hook', 1, SOON);
    // The outbox marks the row delivered just after the receiver answers.
    const delivered = (s: Status) => (s.last_page?.deliveries[0]?.status === 'delivered' ? s : undefined);
    const s = await waitUntil(async () => delivered((await call(state, 'status')) as Status), SOON, 'the page delivered in status');
    const r = await ns(d, env, 'status', ['--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ...s, event_loop: expect.anything() as unknown });
    expect(s).toMatchObject({
      pid: d.pid,
      version: VERSION,
      state_dir: state,
      config_file: join(state, 'config.yaml'),
      notifiers: [{ name: 'hook', kind: 'webhook' }],
      slots: { used: 1, max: 1, blocked: 1, running: 0 },
      queued: 1,
      adopted: 0,
      last_page: { name: 'asks', kind: 'prompt', deliveries: [{ notifier: 'hook', status: 'delivered', error: null }] },
    });
    const text = await ns(d, env, 'status');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^daemon: +running, pid ${d.pid}, nightshift ${VERSION.replace(/\./g, '\\.')}, up `, 'm'));
    expect(text.stdout).toMatch(/^slots: +1\/1: 1 blocked$/m);
    expect(text.stdout).toMatch(/^queued: +1 job\(s\)$/m);
    expect(text.stdout).toMatch(/^last page: +asks \(prompt\) .* ago: hook delivered .* ago$/m);
  }, 60_000);

  it('says how many jobs it adopted from the daemon before it', async (ctx) => {
    const h = scope(ctx);
    const { state, env } = home(h);
    const first = await h.daemon(state, ['--screen-quiet', '10m'], env);
    await first.submit('asks', ASKS);
    await first.waitState('asks', 'blocked', undefined, SOON);
    first.signal('SIGKILL');
    await first.proc.waitExit(5_000);
    const second = await h.daemon(state, ['--screen-quiet', '10m'], env);
    const r = await ns(second, env, 'status', ['--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ pid: second.pid, adopted: 1, config_file: null, notifiers: [] });
    expect((await ns(second, env, 'status')).stdout).toMatch(/^adopted: +1 job\(s\) at start$/m);
  }, 60_000);
});

describe('doctor', () => {
  it('all good: says who is paged about what and what is auto-answered, exit 0', async (ctx) => {
    const h = scope(ctx);
    const { state, env } = home(h, lines('notify:', '  quiet_hours: { start: "22:00", end: "07:00", urgent: [failed] }', '  notifiers:', '    - { kind: webhook, name: hook, url: "env:NS_TEST_HOOK" }', 'pages:', '  send: [prompt, failed]'));
    writeFileSync(join(state, 'policy.yaml'), lines('policy: 1', 'allow:', '  - { ecosystem: npm, name: left-pad }', '  - { ecosystem: pip, name: requests, version: ">=2.31 <3" }'));
    const r = await runCli(['doctor', '--state', state], { env: { ...env, NS_TEST_HOOK: 'http://127.0.0.1:9/hook' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^state: +${state} \\(no daemon running\\)$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^config: +${join(state, 'config.yaml')}$`, 'm'));
    expect(r.stdout).toMatch(/^notifiers: +webhook\(hook\): credentials resolve$/m);
    expect(r.stdout).toMatch(/^pages: +prompt, failed \(not paged: /m);
    expect(r.stdout).toMatch(/^quiet hours: 22:00–07:00, still paged: failed$/m);
    expect(r.stdout).toMatch(new RegExp(`^policy: +${join(state, 'policy.yaml')}: auto-answers npm left-pad, pip requests >=2.31 <3$`, 'm'));
    expect(r.stdout).toMatch(/^rules: +\d+ prompt rules, .* in \d+ file\(s\) under /m);
    expect(r.stdout).toMatch(/^ok: nothing to fix$/m);
  }, 30_000);

  it('a credential that does not resolve: a warning line naming it, exit 1; no config at all: where it looked', async (ctx) => {
    const h = scope(ctx);
    const { state, env } = home(h, lines('notify:', '  notifiers:', '    - { kind: ntfy, url: "https://ntfy.sh/x", token: "env:NS_TEST_UNSET" }'));
    const r = await runCli(['doctor', '--state', state], { env: { ...env, NS_TEST_UNSET: undefined } });
    expect(r.code).toBe(1);
    expect(r.stderrLines).toEqual(['nightshift: warning: notifier ntfy: env:NS_TEST_UNSET is not set']);
    expect(r.stdout).toMatch(/^notifiers: +ntfy: env:NS_TEST_UNSET is not set$/m);
    expect(r.stdout).toMatch(/: auto-answers nothing$/m);

    const bare = home(h);
    const none = await runCli(['doctor', '--state', bare.state], { env: bare.env });
    expect(none.code).toBe(1);
    expect(none.stdout).toContain(`config:      none found (looked in ${join(bare.state, 'config.yaml')}, ${join(bare.env.XDG_CONFIG_HOME, 'nightshift', 'config.yaml')})`);
    expect(none.stderrLines).toEqual(['nightshift: warning: no notifiers: nobody will be paged']);
  }, 30_000);

  it.for<[string, string, string, RegExp]>([
    ['config.yaml', lines('notify:', '  notifiers:', '    - kind: webhook', '      url: "http://127.0.0.1:9/hook"', '      methd: PUT'), 'config.yaml:5', /notify\.notifiers\.0\.methd: Unrecognized key/],
    ['policy.yaml', lines('policy: 1', 'allow:', '  - { ecosystem: npm, name: left-pad, version: "not a range" }'), 'policy.yaml:3', /allow\.0\.version "not a range" is not a valid version range/],
  ])('a bad %s: exit 2 with one FILE:LINE line', { timeout: 30_000 }, async ([file, text, where, problem]: [string, string, string, RegExp], ctx: TestContext) => {
    const h = scope(ctx);
    const { state, env } = home(h);
    writeFileSync(join(state, file), text);
    const r = await runCli(['doctor', '--state', state], { env });
    expectInputError(r, new RegExp(`^nightshift: ${join(state, where).replace(/\./g, '\\.')}: ${problem.source}`));
  });
});

describe('page --test', () => {
  const config = (good: string, badPort: number) =>
    lines('notify:', '  notifiers:', `    - { kind: webhook, name: good, url: "${good}" }`, `    - { kind: webhook, name: bad, url: "http://127.0.0.1:${badPort}/hook" }`);

  /** One line per notifier, and the receiver got a page that says it is a test. */
  async function expectEach(r: CliResult, srv: Awaited<ReturnType<Scope['server']>>): Promise<void> {
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^good +webhook +ok$/m);
    expect(r.stdout).toMatch(/^bad +webhook +failed: .*ECONNREFUSED/m);
    const [hit] = await srv.waitHits('/hook', 1, SOON);
    const page = JSON.parse(hit!.body) as { name: string; reason: string; screen: string[] };
    expect(page.name).toBe('test-page');
    expect(page.reason).toMatch(/^test page from /);
    expect(page.screen.join('\n')).toContain('This is a test page');
  }

  it('through the running daemon: the result of each notifier, exit 1 when one failed', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const { state, env } = home(h, config(srv.url('/hook'), await closedPort(h)));
    const d = await h.daemon(state, [], env);
    const r = await ns(d, env, 'page', ['--test']);
    expect(r.stdout.split('\n')[0]).toBe(`through the daemon (pid ${d.pid}) for ${state}`);
    await expectEach(r, srv);
    expect(JSON.parse(srv.on('/hook')[0]!.body).reason).toContain(`the daemon (pid ${d.pid})`);
  }, 30_000);

  it('with no daemon: sent straight from the config.yaml found, and it says so', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const { state, env } = home(h, config(srv.url('/hook'), await closedPort(h)));
    const r = await runCli(['page', '--test', '--state', state], { env });
    expect(r.stdout.split('\n')[0]).toBe(`no daemon is running for ${state}: sent from ${join(state, 'config.yaml')}`);
    await expectEach(r, srv);
  }, 30_000);

  it('all notifiers working: exit 0', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const { state, env } = home(h, lines('notify:', '  notifiers:', `    - { kind: webhook, url: "${srv.url('/hook')}" }`));
    const r = await runCli(['page', '--test', '--state', state], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^webhook +webhook +ok$/m);
  }, 30_000);
});
