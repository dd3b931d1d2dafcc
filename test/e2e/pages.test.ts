/**
 * Pages a person can act on half asleep, against the real daemon: real
 * PTYs and processes, a private state directory, a real local webhook
 * receiver. Needs a build first (npx tsc -p tsconfig.json).
 */
import { describe, expect, it } from 'vitest';
import { powerCut, testScopes, waitUntil, type PageServer } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;

interface Body {
  name: string;
  kind: string;
  state: string;
  reason: string;
  class: string | null;
  title: string;
  question: string | null;
  risk: string | null;
  commands: string[];
  last_lines: string[];
}

const pageConfig = (url: string, repage: string) => `notify:\n  repage_after: ${repage}\n  notifiers:\n    - { kind: webhook, url: "${url}" }\n`;
const bodies = (hooks: PageServer): Body[] => hooks.on('/hook').map((h) => JSON.parse(h.body) as Body);

/** Waits for a page about `name` that `pred` accepts. */
async function pageOf(hooks: PageServer, name: string, pred: (b: Body) => boolean = () => true): Promise<Body> {
  let found: Body | undefined;
  await hooks.waitHits('/hook', 1, SOON);
  await waitUntil(() => (found = bodies(hooks).find((b) => b.name === name && pred(b))), SOON, `a page about ${name}`, {
    describe: () => JSON.stringify(bodies(hooks).map((b) => [b.name, b.kind, b.title])),
  });
  return found!;
}

describe('pages say what is asked and what to do', () => {
  it('a destructive [y/N], a hang and a failure each page in words, with the commands that move the job on', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const state = s.stateDir(pageConfig(hooks.url('/hook'), '1h'));
    const d = await s.daemon(state);
    const cli = (verb: string, name: string, ...rest: string[]) => ['nightshift', verb, '--state', state, name, ...rest].join(' ');
    await d.submit('deploy-ask', ['bash', '-c', 'echo building; read -p "Deploy to production? [y/N] " a; echo "answer=$a"']);
    await d.submit('stuck', ['bash', '-c', 'echo working; sleep 600']);
    await d.submit('build', ['bash', '-c', 'echo step one; echo "fatal: cannot reach db.internal with password=hunter2"; exit 3']);

    const ask = await pageOf(hooks, 'deploy-ask');
    expect(ask.title).toBe('deploy-ask wants to deploy to production — destructive («Deploy»)');
    expect(ask).toMatchObject({ kind: 'prompt', class: 'destructive', question: 'Deploy to production? [y/N]' });
    expect(ask.commands).toEqual([cli('answer', 'deploy-ask', 'y'), cli('answer', 'deploy-ask', 'n'), cli('show', 'deploy-ask')]);
    // The decline the page offers works as written.
    expect((await d.ns('answer', ['deploy-ask', 'n'])).code).toBe(0);
    await d.waitState('deploy-ask', 'done', undefined, SOON);
    expect((await d.ns('logs', ['deploy-ask'])).stdout).toContain('answer=n');

    const hang = await pageOf(hooks, 'stuck', (b) => b.kind === 'hung');
    expect(hang.title).toMatch(/^stuck is stuck: nothing moved for \d/);
    expect(hang.commands).toEqual([cli('attach', 'stuck'), `${cli('send', 'stuck')} '<what to do>'`, cli('cancel', 'stuck'), cli('show', 'stuck')]);

    const fail = await pageOf(hooks, 'build', (b) => b.kind === 'failed');
    expect(fail.title).toBe('build failed: exit code 3');
    expect(fail.last_lines).toEqual(['step one', 'fatal: cannot reach db.internal with password=[redacted]']);
    expect(fail.commands[0]).toBe(cli('logs', 'build', '--lines', '40'));
    // The command shows the failure.
    const logs = await d.ns('logs', ['build', '--lines', '40']);
    expect(logs.stdout).toContain('fatal: cannot reach db.internal');
  }, 90_000);

  it('after a power cut, the interrupted page goes out exactly once while a live hang is re-paged round after round', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const state = s.stateDir(pageConfig(hooks.url('/hook'), '1s'));
    const d1 = await s.daemon(state);
    await d1.submit('work', ['bash', '-c', 'echo working; sleep 600']);
    await d1.waitLive('work', SOON);
    await powerCut(d1);

    const d2 = await s.daemon(state);
    await d2.waitState('work', 'done', 'interrupted', SOON);
    const page = await pageOf(hooks, 'work', (b) => b.kind === 'interrupted');
    // The clock of this test: a hang on the same daemon, re-paged every second until round 4.
    await d2.submit('clock', ['bash', '-c', 'echo ticking; sleep 600']);
    const rounds = (name: string) => hooks.on('/hook').filter((h) => (JSON.parse(h.body) as Body).name === name).map((h) => Number(h.headers['x-nightshift-round']));
    await waitUntil(() => rounds('clock').some((r) => r >= 4), SOON, 'the hang re-paged 3 times', { describe: () => JSON.stringify(rounds('clock')) });
    expect(rounds('work')).toEqual([1]);
    const shown = await d2.show('work');
    expect(shown.pages.map((p) => [p.page.kind, p.status])).toEqual([['interrupted', 'resolved']]);
    expect(page.title).toMatch(/^work was interrupted: the daemon died under it/);
  }, 90_000);
});
