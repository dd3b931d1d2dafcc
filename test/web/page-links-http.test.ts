/**
 * Issue 11.6 over the wire: a real `nightshift daemon --http` whose
 * notify.public_url is its own address, a real HTTP receiver standing in
 * for ntfy, a real [y/N] job. The page's Open link signs a client in; its
 * Decline action, POSTed as ntfy's app would, declines the job once.
 * Needs a build first.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { testScopes, waitUntil } from '../helpers/daemon.js';
import { pagedWebDaemon } from '../helpers/web-api.js';

const scope = testScopes();
const SOON = 20_000;
const ASK = ['bash', '-c', 'read -r -p "Delete the cache? [y/N] " a; echo "got:[$a]"'];

describe('issue 11.6: a page links to the job, over real HTTP', () => {
  it("ntfy's Open signs in as the page person; its Decline POST declines the job as human:on-call@web, and only once", async (ctx) => {
    const s = scope(ctx);
    const { d, ntfy, base } = await pagedWebDaemon(s);
    await d.submit('ask', ASK);
    const [hit] = await ntfy.waitHits('/topic', 1, SOON);
    const m = /^view, Open, (\S+); http, Decline, (\S+), method=POST, clear=true$/.exec(String(hit!.headers.actions));
    expect(m, String(hit!.headers.actions)).not.toBeNull();
    const [, open, decline] = m!;
    expect(open!.startsWith(`${base}/jobs/ask?code=`)).toBe(true);

    const tapped = await fetch(open!, { redirect: 'manual' });
    expect(tapped.status).toBe(303);
    expect(tapped.headers.get('location')).toBe('/jobs/ask');
    const cookie = tapped.headers.get('set-cookie')!.split(';')[0]!;
    const me = (await (await fetch(`${base}/api/v1/me`, { headers: { cookie } })).json()) as { name: string; role: string };
    expect(me).toMatchObject({ name: 'on-call', role: 'operator' });
    expect((await fetch(open!, { redirect: 'manual' })).status).toBe(401);

    const declined = await fetch(decline!, { method: 'POST' });
    expect(declined.status).toBe(200);
    expect(await declined.json()).toEqual({ message: 'declined: sent n enter' });
    const done = await d.waitState('ask', 'done', undefined, SOON);
    const evidence = readFileSync(done.paths!.evidence, 'utf8');
    expect(evidence).toContain('"answered_by":"human:on-call@web"');
    await waitUntil(() => readFileSync(done.paths!.recording, 'utf8').includes('got:[n]'), SOON, 'the job to print the decline');
    const again = await fetch(decline!, { method: 'POST' });
    expect(again.status).toBe(401);
  }, 90_000);
});
