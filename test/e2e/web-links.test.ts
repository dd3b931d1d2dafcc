/**
 * Issue 11.6 and 11.7 against a real daemon, real PTYs and a real HTTP
 * receiver standing in for ntfy.
 *
 * Page links: an in-process Daemon (Daemon.start, as `nightshift daemon`
 * runs it) with its real token store; the Decline tap is runCodeAction, which
 * the server's `POST /a/:code` calls after redeeming (its route has its own tests).
 * on_unanswered: `nightshift daemon` and `submit --on-unanswered` processes.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Daemon } from '../../src/daemon/daemon.js';
import { handlers } from '../../src/daemon/handlers.js';
import { defaultPolicyPath } from '../../src/rules/bundle.js';
import { runCodeAction } from '../../src/web/actions.js';
import type { RedeemedCode } from '../../src/people/types.js';
import type { JobRecord } from '../../src/board/types.js';
import { testScopes, waitUntil } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 15_000;
const RULES = fileURLToPath(new URL('../../rules/', import.meta.url));
const ASK = ['bash', '-c', 'read -p "Delete? [y/N] " a; echo "got:[$a]"'];

async function inProcessDaemon(state: string): Promise<Daemon> {
  return Daemon.start({
    stateDir: state,
    maxRunning: 2,
    rulesPath: RULES,
    policyPath: defaultPolicyPath(RULES),
    config: { screenQuietMs: 1_000, toolGapMs: 2_000, settleMs: 1_000, verifyMs: 5_000 },
    tickMs: 200,
  });
}

const NO_STREAM = { stream: () => undefined, onInput: () => undefined, onClose: () => undefined, closed: false };

async function submit(d: Daemon, name: string, cwd: string): Promise<JobRecord> {
  const spec = { name, command: ASK, cwd, env: {}, policy: null, rules: null, budgets: {}, priority: 0, after: [] };
  return ((await handlers(() => d).run('submit', { spec }, NO_STREAM)) as { job: JobRecord }).job;
}

const evidenceOf = (d: Daemon, id: string) =>
  readFileSync(d.board.require(id).paths!.evidence, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('pages link to the job (issue 11.6)', () => {
  it('a blocked [y/N] job pages ntfy with Click, Open and Decline; the Decline code declines it as human:on-call@web, once', async (ctx) => {
    const h = scope(ctx);
    const ntfy = await h.server();
    const state = h.stateDir(['notify:', '  public_url: https://ns.example.test/night/', '  repage_after: off', '  notifiers:', `    - { kind: ntfy, url: "${ntfy.url('/topic')}" }`, `    - { kind: webhook, url: "${ntfy.url('/hook')}" }`, ''].join('\n'));
    const d = await inProcessDaemon(state);
    const codes = d.webAuth;
    try {
      expect(d.webBaseUrl).toBe('https://ns.example.test/night');
      const rec = await submit(d, 'ask', h.tempDir());
      const [hit] = await ntfy.waitHits('/topic', 1, SOON);
      const base = 'https://ns.example.test/night';
      const m = /^view, Open, (\S+); http, Decline, (\S+), method=POST, clear=true$/.exec(String(hit!.headers.actions));
      expect(m, String(hit!.headers.actions)).not.toBeNull();
      const [, open, decline] = m!;
      expect(open).toMatch(new RegExp(`^${base}/jobs/ask\\?code=nsc_[\\w-]+$`));
      expect(decline).toMatch(new RegExp(`^${base}/a/nsc_[\\w-]+$`));
      expect(hit!.headers.click).toBe(open);
      // The webhook gets the Page itself, url and decline keys included, with codes of its own.
      const [hook] = await ntfy.waitHits('/hook', 1, SOON);
      const page = JSON.parse(hook!.body) as Record<string, unknown>;
      expect(page).toMatchObject({ kind: 'prompt', rule: 'generic-yes-no', decline_keys: ['n', 'enter'], key: `${rec.id}:1` });
      expect(page.url).toMatch(new RegExp(`^${base}/jobs/ask\\?code=nsc_`));
      expect(page.url).not.toBe(open);

      const login = codes.redeemCode(new URL(open!).searchParams.get('code')!, Date.now());
      expect(login).toEqual({ person: { name: 'on-call', role: 'operator' }, purpose: { kind: 'login', next: '/jobs/ask', from: 'page' } });
      // As the server signs it in (session-routes.ts): a page's session, 12 h at most.
      const session = codes.startSession(login!.person, Date.now(), { from: login!.purpose });
      const act = codes.redeemCode(decline!.split('/a/')[1]!, Date.now())!;
      expect(codes.redeemCode(decline!.split('/a/')[1]!, Date.now())).toBeNull();
      expect(act.purpose).toEqual({ kind: 'action', job: rec.id, action: 'decline', episode: `${rec.id}:1` });
      expect(await runCodeAction(d, handlers(() => d), act, { ip: '192.0.2.7', now: Date.now() })).toEqual({ status: 200, message: 'declined: sent n enter' });
      await waitUntil(() => d.board.require(rec.id).state === 'done', SOON, 'the declined job to finish');
      expect(d.board.require(rec.id).exit).toEqual({ code: 0, signal: null });
      expect(evidenceOf(d, rec.id).find((e) => e.answered_by === 'human:on-call@web')).toMatchObject({ layer: 'human', keys: ['n', 'enter'] });
      // The same tap again (a retry, a replayed request): the job moved on, nothing is sent.
      const again = await runCodeAction(d, handlers(() => d), act, { now: Date.now() });
      expect(again.status).toBe(409);
      expect(again.message).toMatch(/^job ask is done now; the question this page was about is gone, nothing was sent$/);
      // The outbox (which `show` lists to viewers) never holds a code.
      expect(JSON.stringify(d.pager.history(rec.id))).not.toContain('nsc_');
      // on-call has no token, yet `web revoke on-call` ends its session and the webhook's two unused codes, and refuses new ones.
      const revoked = await handlers(() => d).run('web-revoke', { name: 'on-call', who: 'ops' }, NO_STREAM);
      expect(revoked).toEqual({ name: 'on-call', revoked: true, token: false, sessions: 1, codes: 2 });
      expect(codes.session(session.id, Date.now())).toBeNull();
      expect(codes.redeemCode(String(page.decline_url).split('/a/')[1]!, Date.now())).toBeNull();
      expect(() => codes.mintCode({ name: 'on-call', role: 'operator' }, { kind: 'login', next: '/' }, 60_000, Date.now())).toThrow(/"on-call" is revoked/);
    } finally {
      await d.stop('now');
    }
    // Both taps are in the audit log (flushed at stop), the code itself never.
    const audit = readFileSync(join(state, 'web-audit.jsonl'), 'utf8');
    expect(audit).not.toMatch(/nsc_[A-Za-z0-9]/);
    expect(audit.trim().split('\n').map((l) => JSON.parse(l) as object)).toMatchObject([
      { who: 'on-call', action: 'decline', ok: true, ip: '192.0.2.7', detail: 'declined: sent n enter' },
      { who: 'on-call', action: 'decline', ok: false },
      { who: 'human:ops', action: 'web-revoke', ok: true, detail: 'on-call (no token): sessions 1, unused codes 2' },
    ]);
  }, 60_000);

  it('page_person with a viewer token: the page\'s link signs in a viewer, and its Decline is refused with 403', async (ctx) => {
    const h = scope(ctx);
    const ntfy = await h.server();
    const state = h.stateDir(['notify:', '  public_url: https://ns.example.test', '  page_person: alice', '  repage_after: off', '  notifiers:', `    - { kind: ntfy, url: "${ntfy.url('/topic')}" }`, ''].join('\n'));
    const d = await inProcessDaemon(state);
    const codes = d.webAuth;
    try {
      codes.createToken('alice', 'viewer', Date.now());
      const rec = await submit(d, 'ask3', h.tempDir());
      const [hit] = await ntfy.waitHits('/topic', 1, SOON);
      const [, open, decline] = /^view, Open, (\S+); http, Decline, (\S+), method=POST, clear=true$/.exec(String(hit!.headers.actions))!;
      expect(codes.redeemCode(new URL(open!).searchParams.get('code')!, Date.now())?.person).toEqual({ name: 'alice', role: 'viewer' });
      const act = codes.redeemCode(decline!.split('/a/')[1]!, Date.now())!;
      expect(act.person).toEqual({ name: 'alice', role: 'viewer' });
      expect((await runCodeAction(d, handlers(() => d), act, { ip: '192.0.2.8', now: Date.now() })).status).toBe(403);
      expect(d.board.require(rec.id).state).toBe('blocked');
      expect(evidenceOf(d, rec.id).filter((e) => e.answered_by)).toEqual([]);
    } finally {
      await d.stop('now');
    }
  }, 60_000);

  it('a code for an earlier episode is refused with 409 and sends nothing', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir('notify:\n  public_url: https://ns.example.test\n');
    const d = await inProcessDaemon(state);
    try {
      const rec = await submit(d, 'ask2', h.tempDir());
      await waitUntil(() => d.board.require(rec.id).state === 'blocked', SOON, 'the job to block');
      const stale: RedeemedCode = { person: { name: 'on-call', role: 'operator' }, purpose: { kind: 'action', job: rec.id, action: 'decline', episode: `${rec.id}:0` } };
      expect(await runCodeAction(d, handlers(() => d), stale, { now: Date.now() })).toEqual({ status: 409, message: `job ask2 has moved on since this page (${rec.id}:0); nothing was sent` });
      const viewer: RedeemedCode = { ...stale, person: { name: 'eve', role: 'viewer' } };
      expect((await runCodeAction(d, handlers(() => d), viewer, { now: Date.now() })).status).toBe(403);
      expect(d.board.require(rec.id).state).toBe('blocked');
      expect(evidenceOf(d, rec.id).filter((e) => e.answered_by)).toEqual([]);
    } finally {
      await d.stop('now');
    }
  }, 60_000);
});

describe('on_unanswered (issue 11.7)', () => {
  it('submit --on-unanswered 2s: a [y/N] nobody answers gets n, recorded policy:on-unanswered, and the job finishes', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const rec = await d.submit('ask', ASK, ['--on-unanswered', '2s']);
    expect(rec.on_unanswered).toEqual({ after_ms: 2_000, do: 'decline' });
    await d.waitState('ask', 'blocked', 'prompt', SOON);
    const blockedAt = Date.now();
    const done = await d.waitState('ask', 'done', undefined, SOON);
    expect(Date.now() - blockedAt).toBeGreaterThanOrEqual(1_500);
    expect(done.exit).toEqual({ code: 0, signal: null });
    const shown = await d.show('ask');
    expect(shown.evidence.find((e) => e.answered_by === 'policy:on-unanswered')).toMatchObject({ layer: 'policy', keys: ['n', 'enter'], text: 'decline' });
    expect(shown.screen).toContain('got:[n]');
    const log = readFileSync(done.paths!.log, 'utf8');
    expect(log).toContain('declined by policy (policy:on-unanswered): nobody answered in time');
  }, 60_000);

  it('the policy file\'s on_unanswered applies too; a prompt whose rule has no decline keys is never answered', async (ctx) => {
    const h = scope(ctx);
    const dir = h.tempDir();
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'policy: 1\non_unanswered: { after: 1s, do: decline }\n');
    const d = await h.daemon(h.stateDir(), ['--policy', policy]);
    await d.submit('enter', ['bash', '-c', 'read -p "Press Enter to continue " a; echo "went on"']);
    await d.submit('ask', ASK);
    await d.waitState('ask', 'done', undefined, SOON);
    expect((await d.show('ask')).evidence.some((e) => e.answered_by === 'policy:on-unanswered')).toBe(true);
    const enter = await d.waitState('enter', 'blocked', 'prompt', SOON);
    expect(enter.reason.rule).toBe('press-enter');
    // Well past the 1 s: still blocked, nothing recorded as answered, nothing typed.
    await new Promise((r) => setTimeout(r, 3_000));
    const shown = await d.show('enter');
    expect(shown.job.state).toBe('blocked');
    expect(shown.evidence.filter((e) => e.answered_by)).toEqual([]);
    expect(shown.screen).not.toContain('went on');
  }, 60_000);
});

