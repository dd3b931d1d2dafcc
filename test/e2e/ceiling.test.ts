/**
 * The ceiling on waiting, with a real daemon, real jobs and a webhook: a
 * job blocked on a page nobody answers is warned once, then ends
 * done/unanswered, and its slot goes to the queued job while its --after
 * job ends dependency-failed; a queued job says why it waits.
 */
import { describe, expect, it } from 'vitest';
import { startCli, tempDir, type JsonLine } from '../helpers/cli.js';
import { sr, testScopes } from '../helpers/daemon.js';
import { waitUntil } from '../helpers/wait.js';

const scope = testScopes();
const SOON = 15_000;
const ASK = ['bash', '-c', 'read -p "Continue? [y/N] " a; echo got:$a'];
const SLEEPY = ['bash', '-c', 'sleep 30'];

describe('the ceiling on waiting', () => {
  it('warns once, ends the blocked job unanswered, frees its slot for the queue and fails its dependents; queued jobs say why they wait', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const state = h.stateDir(['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${srv.url('/hook')}" }`, ''].join('\n'));
    const d = await h.daemon(state, ['--max-running', '1']);
    await d.submit('ask', ASK, ['--max-blocked', '4s']);
    await d.waitState('ask', 'blocked', 'prompt', SOON);
    await d.submit('next', SLEEPY);
    await d.submit('child', SLEEPY, ['--after', 'ask']);

    // Why each waits: the one slot held by a blocked job, and a job it must follow.
    const board = await d.ns('board');
    expect(board.stdout).toMatch(/next\s+queued\s+submitted: 1\/1 slots held: 1 blocked/);
    expect(board.stdout).toMatch(/child\s+queued\s+submitted: after ask \(blocked: prompt\)/);

    const ended = await d.waitState('ask', 'done', 'unanswered', SOON);
    expect(ended.reason.code).toBe('unanswered');
    await d.waitState('next', 'running', undefined, SOON);
    await d.waitState('child', 'done', 'dependency-failed', SOON);

    const pages = () => srv.hits.filter((x) => x.path === '/hook').map((x) => JSON.parse(x.body) as { name: string; kind: string; reason: string; prompt: string | null });
    const mine = await waitUntil(() => {
      const p = pages().filter((x) => x.name === 'ask');
      return p.some((x) => x.reason === 'unanswered') ? p : undefined;
    }, SOON, 'the unanswered page');
    const reasons = mine.map((x) => x.reason);
    // The block's page, one warning before the end, then the end: in that order, each once.
    expect(reasons).toEqual(['prompt', 'unanswered-soon', 'unanswered']);
    expect(mine[1]!.prompt).toMatch(/ends unanswered in/);
    expect(mine[2]!.prompt).toMatch(/nobody answered for .*ceiling on waiting is 4s/);
    expect((await d.show('ask')).transitions.map(sr).at(-1)).toBe('done/unanswered');
  });

  it('refuses a bad --max-blocked in one line, exit 2; off is accepted', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const bad = await d.ns('submit', ['--max-blocked', 'soon', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderrLines).toEqual([expect.stringMatching(/^nightshift: --max-blocked "soon" is not a duration/)]);
    const off = await d.submit('never', ['true'], ['--max-blocked', 'off']);
    expect(off.budgets.blocked_ms).toBeNull();
    const dflt = await d.submit('default', ['true']);
    expect(dflt.budgets.blocked_ms).toBe(2 * 3_600_000);
  });

  it('config.yaml jobs.max_blocked sets the default; a bad value stops the daemon with file:line', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir('jobs:\n  max_blocked: 90m\n'));
    expect((await d.submit('j', ['true'])).budgets.blocked_ms).toBe(90 * 60_000);
    const bad = h.stateDir('jobs:\n  max_blocked: later\n');
    const r = await d.ns('daemon', ['--state', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/config\.yaml:2: jobs\.max_blocked/);
  });

  it('nightshift run --max-blocked: the warning, then done/unanswered', async () => {
    const p = startCli(['run', '--json', '--state', tempDir(), '--max-blocked', '2s', '--', ...ASK]);
    await p.waitForJson((o: JsonLine) => o.type === 'action' && o.kind === 'escalate', SOON, 'the escalation');
    const warned = await p.waitForJson((o: JsonLine) => o.type === 'warning' && o.warning === 'unanswered-soon', SOON, 'the warning');
    expect(String(warned.message)).toMatch(/ends unanswered in/);
    await p.waitForJson((o: JsonLine) => o.state === 'done' && o.reason === 'unanswered', SOON, 'done/unanswered');
    await p.waitExit(SOON);
  });
});
