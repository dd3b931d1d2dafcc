/** The morning digest as a person's phone gets it: through a real local HTTP receiver, once, never re-paged. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Harness, MIN, NOON } from '../../test/helpers/notify-harness.js';
import { buildDigest } from '../api/digest.js';
import { digestPage } from './morning-digest.js';

const h = new Harness();
afterEach(() => h.cleanup());
afterAll(() => h.remove());

const digest = buildDigest({ jobs: [], blockedSince: new Map(), notes: [], now: NOON, stateDir: '/s', since: NOON - 12 * 60 * MIN });

describe('the morning digest page', () => {
  it('reaches ntfy with its counts as the title and the digest as the body, once over several re-page periods', async () => {
    const r = await h.receiver();
    const { pager, advance } = h.setup(`notify:\n  repage_after: 10m\n  notifiers:\n    - { kind: ntfy, url: "${r.url('/n')}" }\n`);
    pager.page(digestPage(digest, NOON));
    await pager.tick();
    const [hit] = await r.waitHits('/n', 1, 5_000);
    expect(String(hit!.headers.title)).toBe('digest: 0 need you, 0 ended badly, 0 answered for you');
    expect(hit!.body).toContain('nightshift digest since');
    for (let i = 0; i < 4; i++) {
      advance(11 * MIN);
      await pager.tick();
    }
    expect(r.on('/n')).toHaveLength(1);
  });
});
