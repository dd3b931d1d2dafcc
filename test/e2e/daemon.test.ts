/**
 * `nightshift daemon` end to end: the built CLI (bin/nightshift.js → dist/),
 * real daemons, real PTYs, real HTTP receivers for pages. Every test has its
 * own state directory — so its own socket, lock and daemon process — and
 * stops its daemons in afterEach (SIGTERM, SIGTERM, SIGKILL). Waiting is by
 * polling the board with deadlines; the only fixed waits check that
 * something does NOT happen (no re-page after ack, no second delivery).
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createConnection as createNetConnection, createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord, TransitionRecord } from '../../src/board/types.js';
import { call } from '../../src/daemon/client.js';
import { readCast } from '../../src/record/cast-reader.js';
import { readJsonl, runCli, startCli } from '../helpers/cli.js';
import {
  freePort,
  jobPid,
  processAlive,
  rawSpec,
  expectInputError,
  readBoardFile,
  testScopes,
  sr,
  stable,
  waitUntil,
  type Hit,
} from '../helpers/daemon.js';

/** The test's own folders, daemons and servers; closed by afterEach. */
const scope = testScopes();

/** Generous deadlines: 2 cores, and another test file runs beside this one. */
const SOON = 15_000;

const ASK = ['bash', '-c', 'read -p "Continue? [y/N] " a; echo got:$a'];
const SECRET = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const BUSY_5S = 'import time\nt = time.time()\nwhile time.time() - t < 5: pass\n';

const ms = (iso: string | null | undefined): number => Date.parse(String(iso));
const codes = (ts: TransitionRecord[]) => ts.map(sr);

/** Transition times never go backwards. */
function expectOrdered(ts: TransitionRecord[]): void {
  for (let i = 1; i < ts.length; i++) expect(ms(ts[i]!.time), `transition ${i} of ${ts[0]?.job}`).toBeGreaterThanOrEqual(ms(ts[i - 1]!.time));
}

/** The most jobs whose [started, ended) intervals overlap. */
function maxOverlap(jobs: JobRecord[], now = Date.now()): number {
  const edges: Array<[number, number]> = [];
  for (const j of jobs) {
    if (!j.started) continue;
    edges.push([ms(j.started), +1], [j.ended ? ms(j.ended) : now, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (cur += d));
  return max;
}


describe('daemon: the board', () => {
  it('four real jobs at once: prompt, hang, busy child, plain exit each reach their state and reason; transitions in order', async (ctx) => {
    const h = scope(ctx);
    const work = h.tempDir('ns-work-');
    const d = await h.daemon(h.stateDir());
    const cwd = ['--cwd', work];
    await Promise.all([
      d.submit('ask', ASK, cwd),
      d.submit('hang', ['sleep', '60'], cwd),
      d.submit('busy', ['python3', '-c', BUSY_5S], cwd),
      d.submit('hi', ['echo', 'hi'], cwd),
    ]);

    // Poll until everything reached its state; remember every state the busy job was seen in.
    const busySeen = new Set<string>();
    await waitUntil(
      async () => {
        const jobs = await d.jobs();
        const by = (n: string) => jobs.find((j) => j.name === n)!;
        busySeen.add(sr(by('busy')));
        return (
          sr(by('ask')) === 'blocked/prompt' && sr(by('hang')) === 'blocked/hung' && by('busy').state === 'done' && by('hi').state === 'done'
        );
      },
      30_000,
      'ask blocked/prompt, hang blocked/hung, busy and hi done',
      { describe: () => d.describeBoard() },
    );
    expect([...busySeen].filter((s) => s.startsWith('blocked'))).toEqual([]);

    const jobs = await d.boardCli();
    expect(jobs.map((j) => j.name).sort()).toEqual(['ask', 'busy', 'hang', 'hi']);
    for (const j of jobs) {
      expect(j.id).toMatch(/^j-\d{8}-\d{6}-[0-9a-f]{4}$/);
      expect(j.cwd).toBe(work);
      expect(j.started).toEqual(expect.any(String));
      expect(j.paths?.dir).toBe(join(d.state, 'jobs', j.id));
    }
    const by = (n: string) => jobs.find((j) => j.name === n)!;
    expect(by('ask').reason).toEqual({ code: 'prompt', rule: 'generic-yes-no', class: 'confirm' });
    expect(by('hang').reason).toMatchObject({ code: 'hung' });
    expect(by('busy').reason).toEqual({ code: 'exit', exit_code: 0, signal: null });
    expect(by('busy').exit).toEqual({ code: 0, signal: null });
    expect(by('hi').reason).toEqual({ code: 'exit', exit_code: 0, signal: null });
    expect(by('hi').exit).toEqual({ code: 0, signal: null });

    // show --json: transitions in order, from submission on.
    const hi = await d.showCli('hi');
    expect(codes(hi.transitions)).toEqual(['queued/submitted', 'running/started', 'done/exit']);
    expect(hi.screen).toContain('hi');
    const busy = await d.showCli('busy');
    expectOrdered(busy.transitions);
    expect(codes(busy.transitions).slice(0, 2)).toEqual(['queued/submitted', 'running/started']);
    expect(codes(busy.transitions)).toContain('running/quiet-child-busy');
    expect(codes(busy.transitions).filter((c) => c.startsWith('blocked'))).toEqual([]);
    expect(codes(busy.transitions).at(-1)).toBe('done/exit');
    // The busy job ran its 5 s to the end: never stopped.
    expect(ms(busy.job.ended) - ms(busy.job.started)).toBeGreaterThanOrEqual(4_900);
    // last_activity is "output, tool call, child activity" (src/board/types.ts): the child burned CPU for 5 s.
    expect.soft(ms(busy.job.last_activity), 'busy.last_activity follows child activity').toBeGreaterThan(ms(busy.job.started) + 2_000);

    const ask = await d.showCli('ask');
    expect(codes(ask.transitions)).toEqual(['queued/submitted', 'running/started', 'blocked/prompt']);
    expect(ask.transitions[2]!.reason).toEqual({ code: 'prompt', rule: 'generic-yes-no', class: 'confirm' });
    expect(ask.screen).toContain('Continue? [y/N]');
    expect(ask.signals).toMatchObject({ tools_in_flight: 0, child_busy: false });
    expect(ask.evidence[0]).toMatchObject({ type: 'prompt', rule: 'generic-yes-no', decision: 'escalate', answered_by: null });
    const hang = await d.showCli('hang');
    expect(codes(hang.transitions)).toEqual(['queued/submitted', 'running/started', 'blocked/hung']);
    for (const s of [hi, busy, ask, hang]) {
      expectOrdered(s.transitions);
      expect(s.transitions.every((t) => t.job === s.job.id)).toBe(true);
    }

    // cancel: blocked jobs are stopped gracefully and say so.
    for (const n of ['ask', 'hang']) {
      const r = await d.ns('cancel', [n]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`cancelled ${n}\n`);
    }
    await d.waitState('ask', 'done', 'cancelled', SOON);
    await d.waitState('hang', 'done', 'cancelled', SOON);
    expect(codes((await d.show('hang')).transitions)).toEqual(['queued/submitted', 'running/started', 'blocked/hung', 'done/cancelled']);
    // Cancelling a done job is bad input.
    expectInputError(await d.ns('cancel', ['hi']), /already done/);
  }, 60_000);

  it('--max-running 2: never more than 2 at once; priority, then first come first served; --after waits for success; a failed dependency ends its dependants', async (ctx) => {
    const h = scope(ctx);
    const work = h.tempDir('ns-work-');
    const d = await h.daemon(h.stateDir(), ['--max-running', '2']);
    // Gates hold a slot until the test creates their file.
    const gate = (f: string) => ['bash', '-c', `while [ ! -e ${join(work, f)} ]; do sleep 0.1; done`];
    const opts = (...o: string[]) => ['--cwd', work, ...o];
    let maxActive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const jobs = await d.jobs().catch(() => []);
        maxActive = Math.max(maxActive, jobs.filter((j) => j.state === 'running' || j.state === 'blocked').length);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      await d.submit('g1', gate('go1'), opts());
      await d.submit('g2', gate('go2'), opts());
      await d.waitJob('g2', (j) => j.started !== null, SOON, 'started');
      // Submission order matters (FIFO among equal priorities): one at a time.
      await d.submit('low1', ['echo', 'low1'], opts());
      await d.submit('low2', ['echo', 'low2'], opts());
      await d.submit('dep-ok', ['echo', 'dep-ok'], opts('--after', 'low1'));
      await d.submit('fail', ['bash', '-c', 'exit 3'], opts('--priority', '-5'));
      await d.submit('dep-bad', ['echo', 'never'], opts('--after', 'fail'));
      await d.submit('after-g2', ['echo', 'after-g2'], opts('--after', 'g2', '--priority', '10'));
      await d.submit('high', ['echo', 'high'], opts('--priority', '5'));

      const before = await d.boardCli();
      expect(before.filter((j) => j.state === 'queued').map((j) => j.name)).toEqual(['low1', 'low2', 'dep-ok', 'fail', 'dep-bad', 'after-g2', 'high']);
      expect(before.find((j) => j.name === 'dep-ok')!.after).toEqual([before.find((j) => j.name === 'low1')!.id]);
      // A queued job that is cancelled never starts.
      await d.submit('doomed', ['echo', 'doomed'], opts('--priority', '100'));
      expect((await d.ns('cancel', ['doomed'])).code).toBe(0);
      expect(await d.waitState('doomed', 'done', 'cancelled', SOON)).toMatchObject({ started: null, paths: null });

      // One slot frees: the queue drains through it, one job at a time, while g2 holds the other.
      writeFileSync(join(work, 'go1'), '');
      await d.waitState('dep-bad', 'done', 'dependency-failed', SOON);
      for (const n of ['high', 'low1', 'low2', 'dep-ok', 'fail']) await d.waitState(n, 'done', 'exit', SOON);
      // after-g2 outranks everything but waits for g2 to succeed.
      expect((await d.jobs()).find((j) => j.name === 'after-g2')!.state).toBe('queued');
      writeFileSync(join(work, 'go2'), '');
      await d.waitState('after-g2', 'done', 'exit', SOON);
    } finally {
      sampling = false;
      await sampler;
    }

    const jobs = await d.boardCli();
    const by = (n: string) => jobs.find((j) => j.name === n)!;
    expect(maxActive).toBe(2);
    expect(maxOverlap(jobs)).toBeLessThanOrEqual(2);
    const chain = ['high', 'low1', 'low2', 'dep-ok', 'fail'];
    const started = jobs.filter((j) => j.started).sort((a, b) => ms(a.started) - ms(b.started)).map((j) => j.name);
    expect(started.slice(0, 2).sort()).toEqual(['g1', 'g2']);
    expect(by('doomed').started).toBeNull();
    expect(started.slice(2)).toEqual([...chain, 'after-g2']);
    // Through one slot: each starts after the one before it ended.
    for (let i = 1; i < chain.length; i++) expect(ms(by(chain[i]!).started)).toBeGreaterThanOrEqual(ms(by(chain[i - 1]!).ended));
    expect(ms(by('high').started)).toBeGreaterThanOrEqual(ms(by('g1').ended));
    expect(ms(by('dep-ok').started)).toBeGreaterThanOrEqual(ms(by('low1').ended));
    expect(ms(by('after-g2').started)).toBeGreaterThanOrEqual(ms(by('g2').ended));
    expect(by('g2').exit).toEqual({ code: 0, signal: null });
    expect(by('fail').reason).toEqual({ code: 'exit', exit_code: 3, signal: null });
    expect(by('dep-bad')).toMatchObject({ state: 'done', started: null, paths: null });
    expect(by('dep-bad').reason.code).toBe('dependency-failed');
    expect(codes((await d.show('dep-bad')).transitions)).toEqual(['queued/submitted', 'done/dependency-failed']);
  }, 90_000);

  it('cancel interrupts a shell job\'s foreground command at once (README: interrupt, then terminate, then kill, 3 s apart)', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('script', ['bash', '-c', 'echo start; sleep 30; echo after']);
    await d.waitLive('script', SOON);
    expect((await d.ns('cancel', ['script'])).code).toBe(0);
    const done = await d.waitState('script', 'done', 'cancelled', SOON);
    const stopping = readJsonl(done.paths!.log).find((l) => l.msg === 'stopping job');
    expect(stopping).toMatchObject({ cause: 'cancelled' });
    // A Ctrl-C reaches the terminal's foreground process group; SIGINT to the shell alone is deferred
    // until its foreground child exits, so only the SIGTERM 3 s later would end the job.
    // The signal tells how it died; the status is the cancel's (src/core/outcome.ts), whatever the process made of it.
    expect.soft(done.exit, 'the job died of the interrupt').toEqual({ code: 121, signal: 'SIGINT' });
    expect.soft(ms(done.ended) - ms(String(stopping!.time)), 'ms from "stopping job" to done').toBeLessThan(1_500);
  }, 60_000);

  it('cancel while a job is still starting stops it, and the daemon survives its exit', async (ctx) => {
    const h = scope(ctx);
    const work = h.tempDir('ns-work-');
    const d = await h.daemon(h.stateDir());
    const script = 'for i in $(seq 1 40); do echo tick $i; sleep 0.2; done'; // 8 s if nobody stops it
    // Submit and cancel straight over the socket, back to back: the daemon is still wiring the job up.
    await call(d.state, 'submit', { spec: rawSpec('early', ['bash', '-c', script], work) });
    await call(d.state, 'cancel', { job: 'early' });
    const job = await d.waitState('early', 'done', 'cancelled', SOON);
    const pid = await waitUntil(() => (job.paths && existsSync(job.paths.log) ? jobPid(job) : undefined), SOON, 'the job pid in its log');
    await waitUntil(() => !processAlive(pid) || d.proc.exited !== undefined, SOON, 'the job process to end');
    // Give the daemon the same deadline to notice the exit, then it must still be there.
    const exitMarked = async () => (await readCast(job.paths!.recording)).events.some((e) => e.code === 'm' && e.data.startsWith('exit:'));
    await waitUntil(async () => d.proc.exited !== undefined || (await exitMarked()), SOON, 'the exit marker in the recording');
    const out = (await readCast(job.paths!.recording)).events.filter((e) => e.code === 'o').map((e) => e.data).join('');
    expect.soft(out, 'a cancelled job is stopped, not run to its end').not.toContain('tick 40');
    expect.soft(d.proc.exited, `the daemon is still running; its stderr:\n${d.proc.stderr}`).toBeUndefined();
    if (!d.proc.exited) expect(sr((await d.jobs())[0]!)).toBe('done/cancelled');
  }, 60_000);
});

/** Config with the three HTTP notifier kinds pointing at one local receiver. */
function threeNotifiers(base: string, repage: string): string {
  return [
    'notify:',
    `  repage_after: ${repage}`,
    '  notifiers:',
    `    - { kind: webhook, url: "${base}/hook" }`,
    `    - { kind: ntfy, url: "${base}/nightshift-topic" }`,
    '    - { kind: slack, url: "env:SLACK_URL" }',
    '',
  ].join('\n');
}

/** A header value as ntfy gets a non-Latin-1 title. */
const rfc2047 = (s: string) => `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
const everything = (hit: Hit) => `${hit.body}\n${JSON.stringify(hit.headers)}`;

describe('daemon: paging', () => {
  it('webhook, ntfy and Slack each get one page per episode (redacted, with the answer command), a re-page when not acked, none after ack', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const base = `http://127.0.0.1:${srv.port}`;
    const d = await h.daemon(h.stateDir(threeNotifiers(base, '2s')), [], { SLACK_URL: `${base}/slack/T000/B000/XXXX` });
    await d.submit('pager-ask', ['bash', '-c', `echo "token ${SECRET}"; read -p "Continue? [y/N] " a; echo got:$a`]);
    await d.waitState('pager-ask', 'blocked', 'prompt', SOON);

    const [hook] = await srv.waitHits('/hook', 1, SOON);
    const [ntfy] = await srv.waitHits('/nightshift-topic', 1, SOON);
    const [slack] = await srv.waitHits('/slack/T000/B000/XXXX', 1, SOON);

    // Generic webhook: the page itself, as JSON.
    expect(hook!.headers['content-type']).toBe('application/json');
    expect(hook!.headers['x-nightshift-round']).toBe('1');
    const page = JSON.parse(hook!.body) as Record<string, unknown> & { screen: string[] };
    expect(page).toMatchObject({
      name: 'pager-ask',
      state: 'blocked',
      reason: 'prompt',
      kind: 'prompt',
      rule: 'generic-yes-no',
      class: 'confirm',
      prompt: 'Continue? [y/N]',
      // Pasted into any shell it works: the state dir is not this shell's default.
      answer_command: `nightshift answer --state ${d.state} pager-ask y`,
      urgent: true,
    });
    expect(page.screen).toContain('Continue? [y/N]');
    expect(page.screen).toContain('token [redacted]');

    // ntfy: text body, metadata in headers.
    // What is asked and its risk in words; the dash makes the header RFC 2047 encoded.
    expect(ntfy!.headers.title).toBe(rfc2047('pager-ask wants to continue — asks to confirm'));
    expect(ntfy!.headers.priority).toBe('high');
    for (const s of ['pager-ask', 'blocked', 'prompt', 'Continue? [y/N]', `nightshift answer --state ${d.state} pager-ask y`]) expect(ntfy!.body).toContain(s);

    // Slack: one mrkdwn text.
    const slackText = (JSON.parse(slack!.body) as { text: string }).text;
    for (const s of ['pager-ask', 'blocked', 'prompt', 'Continue? [y/N]', `nightshift answer --state ${d.state} pager-ask y`]) expect(slackText).toContain(s);

    // README "Paging": every page carries the last screen lines (redacted). ntfy and Slack bodies show
    // only the prompt when there is one — see the report (src/notify/format.ts detail()).
    expect.soft(ntfy!.body, 'ntfy page carries the screen lines').toContain('token [redacted]');
    expect.soft(slackText, 'Slack page carries the screen lines').toContain('token [redacted]');

    // Not acked: a re-page round after 2 s on every notifier.
    const hooks = await srv.waitHits('/hook', 2, SOON);
    const ntfys = await srv.waitHits('/nightshift-topic', 2, SOON);
    const slacks = await srv.waitHits('/slack/T000/B000/XXXX', 2, SOON);
    expect(hooks[1]!.headers['x-nightshift-round']).toBe('2');
    expect(ntfys[1]!.headers.title).toBe(rfc2047('Reminder 1: pager-ask wants to continue — asks to confirm'));
    expect((JSON.parse(slacks[1]!.body) as { text: string }).text).toContain('Reminder 1: pager-ask wants to continue — asks to confirm');
    expect(hooks[1]!.at - hooks[0]!.at).toBeGreaterThanOrEqual(1_900);
    // Exactly one first-round page per notifier for the episode.
    expect(hooks.filter((x) => x.headers['x-nightshift-round'] === '1')).toHaveLength(1);
    expect(ntfys.filter((x) => String(x.headers.title) === rfc2047('pager-ask wants to continue — asks to confirm'))).toHaveLength(1);
    expect(slacks.filter((x) => !x.body.includes('Reminder'))).toHaveLength(1);

    const ack = await d.ns('ack', ['pager-ask']);
    expect(ack.code, ack.stderr).toBe(0);
    expect(ack.stdout).toBe('acknowledged pager-ask (1 page(s))\n');
    const afterAck = srv.hits.length;
    // Longer than repage_after plus a few ticks: nothing more may arrive.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(srv.hits.length).toBe(afterAck);
    for (const h2 of srv.hits) expect(h2.status).toBe(200);

    const shown = await d.showCli('pager-ask');
    expect(shown.pages.map((p) => p.notifier).sort()).toEqual(['ntfy', 'slack', 'webhook']);
    for (const row of shown.pages) {
      expect(row).toMatchObject({ status: 'acked', key: `${shown.job.id}:1`, job: shown.job.id });
      expect(row.round).toBeGreaterThanOrEqual(2);
    }
    // The secret never left the job: not in any page, header, or outbox row.
    for (const hit of srv.hits) expect(everything(hit)).not.toContain(SECRET);
    expect(JSON.stringify(shown.pages)).not.toContain(SECRET);
    // show redacts too: the live screen carries the token's shape, not the token.
    expect(shown.screen).toContain('token [redacted]');
    expect(shown.screen).not.toContain(SECRET);
  }, 60_000);

  it('delivery survives a notifier answering 500 and one that is down at first: retried, delivered exactly once each', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    srv.failFirst.set('/flaky', [500]);
    const latePort = await freePort();
    const config = [
      'notify:',
      '  repage_after: off',
      '  notifiers:',
      `    - { kind: webhook, name: flaky, url: "${srv.url('/flaky')}" }`,
      `    - { kind: webhook, name: late, url: "http://127.0.0.1:${latePort}/late" }`,
      '',
    ].join('\n');
    const d = await h.daemon(h.stateDir(config));
    await d.submit('retry-ask', ASK);
    await d.waitState('retry-ask', 'blocked', 'prompt', SOON);

    // The first tries fail: HTTP 500 on one, nobody listening on the other.
    const failed = await waitUntil(
      async () => {
        const rows = (await d.show('retry-ask')).pages;
        return rows.length === 2 && rows.every((r) => r.attempts >= 1) ? rows : undefined;
      },
      SOON,
      'a failed first try on both notifiers',
    );
    const byName = (rows: typeof failed, n: string) => rows.find((r) => r.notifier === n)!;
    expect(byName(failed, 'flaky')).toMatchObject({ status: 'pending' });
    expect(byName(failed, 'flaky').last_error).toMatch(/HTTP 500/);
    expect(byName(failed, 'late')).toMatchObject({ status: 'pending' });
    expect(byName(failed, 'late').last_error).toMatch(/ECONNREFUSED|fetch failed/);

    // The receiver comes up; the back-off (5 s) brings both pages.
    const late = await h.server(latePort);
    await late.waitHits('/late', 1, SOON);
    await srv.waitHits('/flaky', 2, SOON);
    const rows = await waitUntil(
      async () => {
        const r = (await d.show('retry-ask')).pages;
        return r.every((x) => x.status === 'delivered') ? r : undefined;
      },
      SOON,
      'both rows delivered',
    );
    expect(byName(rows, 'flaky')).toMatchObject({ round: 1, attempts: 1, last_error: null });
    expect(byName(rows, 'late')).toMatchObject({ round: 1, last_error: null });
    // A few more ticks: still exactly one successful delivery each.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(srv.on('/flaky').map((x) => x.status)).toEqual([500, 200]);
    expect(late.on('/late').map((x) => x.status)).toEqual([200]);
    const delivered = JSON.parse(late.on('/late')[0]!.body) as Record<string, unknown>;
    expect(delivered).toMatchObject({ name: 'retry-ask', kind: 'prompt', answer_command: `nightshift answer --state ${d.state} retry-ask y` });
  }, 60_000);
});

describe('daemon: answering', () => {
  it('answer unblocks a job (blocked → running → done), recorded as human:<name>; answering a job that is not blocked is refused', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('ask', ASK);
    await d.submit('ticker', ['bash', '-c', 'for i in $(seq 1 400); do echo tick $i; sleep 0.1; done']);
    await d.waitState('ask', 'blocked', 'prompt', SOON);

    const r = await d.ns('answer', ['ask', 'y'], { NIGHTSHIFT_USER: 'tester' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('answered ask: ["y","enter"] as human:tester\n');
    const done = await d.waitState('ask', 'done', 'exit', SOON);
    expect(done.exit).toEqual({ code: 0, signal: null });

    const shown = await d.showCli('ask');
    expect(codes(shown.transitions)).toEqual(['queued/submitted', 'running/started', 'blocked/prompt', 'running/prompt-cleared', 'done/exit']);
    expectOrdered(shown.transitions);
    expect(shown.screen).toContain('got:y');
    const evidence = readJsonl(shown.job.paths!.evidence);
    expect(evidence.map((e) => e.type)).toEqual(['prompt', 'followup', 'outcome']);
    expect(evidence[0]).toMatchObject({ type: 'prompt', decision: 'escalate', answered_by: null, prompt: 'Continue? [y/N]' });
    expect(evidence[1]).toMatchObject({ type: 'followup', episode: 1, decision: 'answer', answered_by: 'human:tester', keys: ['y', 'enter'] });
    expect(evidence[2]).toMatchObject({ type: 'outcome', episode: 1, followed: 'prompt-cleared' });
    const cast = await readCast(shown.job.paths!.recording);
    expect(cast.events.filter((e) => e.code === 'i').map((e) => e.data)).toEqual(['y\r']);
    expect(cast.events.at(-1)).toMatchObject({ code: 'm', data: 'exit:0' });

    // Not blocked: a done job and a running one. Exit 2, one line, the board as it was.
    await d.waitState('ticker', 'running', undefined, SOON);
    const before = stable(await d.jobs());
    expectInputError(await d.ns('answer', ['ask', 'y'], { NIGHTSHIFT_USER: 'tester' }), /job ask is not blocked \(it is done: exit\)/);
    expectInputError(await d.ns('answer', ['ticker', 'y'], { NIGHTSHIFT_USER: 'tester' }), /job ticker is not blocked \(it is running/);
    expectInputError(await d.ns('answer', ['nosuch', 'y']), /no job "nosuch"/);
    expect(stable(await d.jobs())).toEqual(before);
    expect(readJsonl(shown.job.paths!.evidence)).toHaveLength(3);
    await d.ns('cancel', ['ticker']);
  }, 60_000);
});

describe('daemon: crash and restart', () => {
  it('kill -9 of the daemon and its PTY host (a power cut) mid-run: the board survives, running/blocked jobs become done/interrupted, queued ones run after restart, records parse, the outbox page is delivered', async (ctx) => {
    const h = scope(ctx);
    const port = await freePort();
    const state = h.stateDir(['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "http://127.0.0.1:${port}/hook" }`, ''].join('\n'));
    const d1 = await h.daemon(state, ['--max-running', '2']);
    await d1.submit('ask', ['bash', '-c', `echo "token ${SECRET}"; read -p "Continue? [y/N] " a; echo got:$a`]);
    await d1.submit('work', ['bash', '-c', 'echo working; sleep 60']);
    await d1.submit('later', ['echo', 'later-ran']);
    await d1.waitState('ask', 'blocked', 'prompt', SOON);
    await d1.waitJob('work', (j) => j.state === 'running' || j.state === 'blocked', SOON, 'running or blocked');
    // The page could not go out: the receiver is down.
    await waitUntil(async () => (await d1.show('ask')).pages.some((p) => p.attempts >= 1 && p.status === 'pending'), SOON, 'a failed page try');
    const beforeCrash = await d1.jobs();
    expect(beforeCrash.find((j) => j.name === 'later')!.state).toBe('queued');
    const pids = beforeCrash.filter((j) => j.name !== 'later').map(jobPid);

    const host = d1.hostPid()!;
    d1.signal('SIGKILL');
    expect(await d1.proc.waitExit(5_000)).toEqual({ code: null, signal: 'SIGKILL' });
    // The jobs' PTYs live in the host (test/e2e/restart.test.ts has them survive the daemon alone): with it gone, they got SIGHUP.
    process.kill(host, 'SIGKILL');
    await waitUntil(() => pids.every((p) => !processAlive(p)), SOON, `job processes ${pids.join(', ')} to end`);
    // A dead daemon leaves its socket and lock behind; the CLI still says how to start one.
    const noDaemon = await runCli(['board', '--state', state]);
    expect(noDaemon.code).toBe(2);
    expect(noDaemon.stderr).toContain(`nightshift daemon --state ${state}`);

    // The board file is intact and as the dead daemon left it.
    const file = readBoardFile(state);
    expect(file.jobs.map((j) => `${j.name}=${j.state}`)).toEqual(beforeCrash.map((j) => `${j.name}=${j.state}`));

    // The killed jobs' records parse.
    for (const j of beforeCrash.filter((x) => x.name !== 'later')) {
      const cast = await readCast(j.paths!.recording);
      expect(cast.header.version).toBe(2);
      const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data).join('');
      expect(out).toContain(j.name === 'ask' ? 'Continue? [y/N]' : 'working');
      expect(() => readJsonl(j.paths!.evidence)).not.toThrow();
      expect(() => readJsonl(j.paths!.log)).not.toThrow();
    }
    expect(readJsonl(beforeCrash.find((j) => j.name === 'ask')!.paths!.evidence)[0]).toMatchObject({ type: 'prompt', decision: 'escalate' });

    // The receiver is up now; a new daemon takes over the stale lock.
    const srv = await h.server(port);
    const d2 = await h.daemon(state, ['--max-running', '2']);
    expect(readFileSync(d2.lock, 'utf8').trim()).toBe(String(d2.pid));
    await d2.waitState('later', 'done', 'exit', SOON);
    const after = await d2.boardCli();
    const by = (n: string) => after.find((j) => j.name === n)!;
    for (const n of ['ask', 'work']) {
      expect(by(n)).toMatchObject({ state: 'done', reason: { code: 'interrupted' } });
      expect(codes((await d2.show(n)).transitions).at(-1)).toBe('done/interrupted');
    }
    expect(by('later').reason).toEqual({ code: 'exit', exit_code: 0, signal: null });
    expect((await d2.show('later')).screen).toContain('later-ran');
    // The prompt page the first daemon could not send is stale (nobody can answer a dead process):
    // the second daemon resolves it and pages once per interrupted job instead.
    const hits = await srv.waitHits('/hook', 2, SOON);
    const pages = hits.map((x) => JSON.parse(x.body) as { name: string; kind: string; prompt: string });
    expect(pages.map((p) => `${p.name}:${p.kind}`).sort()).toEqual(['ask:interrupted', 'work:interrupted']);
    expect(pages.find((p) => p.name === 'ask')!.prompt).toContain('Continue? [y/N]');
    expect((await d2.show('ask')).pages.filter((p) => p.page.kind === 'prompt').map((p) => p.status)).toEqual(['resolved']);
    for (const x of hits) expect(x.body).not.toContain(SECRET);
    // The queued job ran under the new daemon, never the old one.
    expect(ms(by('later').started)).toBeGreaterThan(ms(by('ask').ended) - 1);
  }, 90_000);
});

describe('daemon: socket, lock, no daemon', () => {
  it('run dir 0700, socket 0600, lock holds the pid; a second daemon exits 2 naming it; no daemon → exit 2 saying how to start one', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    // No daemon yet (and no state dir content at all).
    const none = await runCli(['board', '--state', state]);
    expect(none.code).toBe(2);
    expect(none.stderrLines).toHaveLength(1);
    expect(none.stderr).toContain(`nightshift daemon --state ${state}`);
    const noneSubmit = await runCli(['submit', '--state', join(state, 'nowhere'), '--name', 'x', '--', 'echo']);
    expect(noneSubmit.code).toBe(2);
    expect(noneSubmit.stderr).toContain('nightshift daemon --state');

    const d = await h.daemon(state);
    expect(statSync(join(state, 'run')).mode & 0o777).toBe(0o700);
    expect(statSync(d.socket).isSocket()).toBe(true);
    expect(statSync(d.socket).mode & 0o777).toBe(0o600);
    expect(readFileSync(d.lock, 'utf8').trim()).toBe(String(d.pid));
    expect(statSync(join(state, 'board.sqlite')).mode & 0o777).toBe(0o600);
    // Nothing of the temporary bind name is left behind.
    // The ballast is the room the board keeps for a full disk.
    // The PTY host has its lock and socket beside the daemon's, private as they are.
    expect(readdirSync(join(state, 'run')).sort()).toEqual(['ballast', 'daemon.lock', 'nightshift.sock', 'ptyhost.lock', 'ptyhost.sock']);
    expect(statSync(join(state, 'run', 'ptyhost.sock')).mode & 0o777).toBe(0o600);

    const second = await runCli(['daemon', '--state', state, '--tick', '200ms'], { ms: 15_000 });
    expect(second.code).toBe(2);
    expect(second.stderrLines).toHaveLength(1);
    expect(second.stderrLines[0]).toMatch(new RegExp(`^nightshift: .*pid ${d.pid}\\b`));
    // The first daemon is unharmed: same lock, socket still answers.
    expect(readFileSync(d.lock, 'utf8').trim()).toBe(String(d.pid));
    expect(await d.boardCli()).toEqual([]);

    // A request of another protocol version is refused by the daemon, clearly.
    const reply = await new Promise<string>((resolve, reject) => {
      const sock = createNetConnection(d.socket);
      let buf = '';
      sock.setEncoding('utf8').on('data', (c: string) => {
        buf += c;
        if (buf.includes('\n')) {
          sock.end();
          resolve(buf.trim());
        }
      });
      sock.on('error', reject);
      sock.write(`${JSON.stringify({ v: 2, id: 9, cmd: 'board', args: {} })}\n`);
    });
    expect(JSON.parse(reply)).toMatchObject({ v: 1, id: 9, ok: false, error: { kind: 'input', message: expect.stringMatching(/protocol version 2 not supported/) } });
  }, 60_000);

  it('the CLI refuses a daemon that speaks another protocol version (README: they refuse each other)', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    mkdirSync(join(state, 'run'), { mode: 0o700 });
    // A stand-in for a newer daemon: answers every request at protocol version 2.
    const fake = createNetServer((sock) => {
      sock.setEncoding('utf8').once('data', (c: string) => {
        const req = JSON.parse(c.split('\n')[0]!) as { id: number };
        sock.write(`${JSON.stringify({ v: 2, id: req.id, ok: true, result: [] })}\n`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(join(state, 'run', 'nightshift.sock'), resolve));
    try {
      const r = await runCli(['board', '--state', state, '--json']);
      expect.soft(r.code, `board against a v2 daemon printed ${JSON.stringify(r.stdout)}`).toBe(2);
      expect.soft(r.stderr).toMatch(/protocol version/);
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  }, 30_000);

  it('a config that holds a literal Slack URL is refused at start: exit 2, one FILE:LINE line, no lock left', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir(['notify:', '  notifiers:', '    - { kind: slack, url: "https://hooks.slack.com/services/T0/B0/XYZ" }', ''].join('\n'));
    const r = await runCli(['daemon', '--state', state, '--tick', '200ms'], { ms: 15_000, env: { NIGHTSHIFT_STATE: undefined } });
    expectInputError(r, new RegExp(`^nightshift: ${join(state, 'config.yaml')}:3: .*env:NAME`));
    expect(existsSync(join(state, 'run', 'daemon.lock'))).toBe(false);
  }, 30_000);
});

describe('daemon: bad input', () => {
  it('submit with a missing cwd, an unknown policy file, a bad duration, a duplicate name: exit 2, one line, board unchanged', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('good', ['echo', 'good']);
    await d.waitState('good', 'done', 'exit', SOON);
    const before = await d.boardCli();

    expectInputError(await d.ns('submit', ['--name', 'a', '--cwd', '/nonexistent/ns-e2e', '--', 'echo', 'x']), /\/nonexistent\/ns-e2e/);
    expectInputError(await d.ns('submit', ['--name', 'b', '--policy', '/nonexistent/policy.yaml', '--', 'echo', 'x']), /policy\.yaml/);
    expectInputError(await d.ns('submit', ['--name', 'c', '--max-wall', '6x', '--', 'echo', 'x']), /6x/);
    expectInputError(await d.ns('submit', ['--name', 'good', '--', 'echo', 'x']), /already exists/);
    expectInputError(await d.ns('submit', ['--name', 'e', '--after', 'nosuch', '--', 'echo', 'x']), /nosuch/);
    expectInputError(await d.ns('show', ['nosuch']), /no job "nosuch"/);
    expectInputError(await d.ns('key', ['good', 'hyperspace']), /hyperspace/);

    expect(await d.boardCli()).toEqual(before);
    expect(readdirSync(join(d.state, 'jobs'))).toHaveLength(1);
  }, 60_000);
});

describe('daemon: budgets', () => {
  it('--max-wall 2s stops a sleep within ~5 s (budget:wall, paged as budget); --max-idle 3s stops a silent one (budget:no-progress)', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const state = h.stateDir(['notify:', '  repage_after: off', '  notifiers:', `    - { kind: webhook, url: "${srv.url('/hook')}" }`, ''].join('\n'));
    const d = await h.daemon(state);
    await d.submit('wall', ['sleep', '60'], ['--max-wall', '2s']);
    await d.submit('idle', ['sleep', '60'], ['--max-idle', '3s']);

    const wall = await d.waitState('wall', 'done', undefined, SOON);
    expect(wall.reason.code).toBe('budget:wall');
    // blocked_ms: the daemon's default ceiling on waiting, recorded with the job.
    expect(wall.budgets).toEqual({ wall_ms: 2_000, tokens: null, no_progress_ms: null, steps: null, blocked_ms: 7_200_000 });
    const took = ms(wall.ended) - ms(wall.started);
    expect(took).toBeGreaterThanOrEqual(2_000);
    expect(took).toBeLessThanOrEqual(5_000);
    const idle = await d.waitState('idle', 'done', undefined, SOON);
    expect(idle.reason.code).toBe('budget:no-progress');
    expect(ms(idle.ended) - ms(idle.started)).toBeGreaterThanOrEqual(3_000);

    // Each budget trip is a page of kind budget: queued in the outbox, sent on a following tick.
    for (const [name, reason] of [['wall', 'budget:wall'], ['idle', 'budget:no-progress']] as const) {
      const isBudgetPage = (x: Hit) => {
        const p = JSON.parse(x.body) as { kind: string; name: string };
        return p.kind === 'budget' && p.name === name;
      };
      const hit = await waitUntil(() => srv.on('/hook').find(isBudgetPage), SOON, `the budget page of ${name} at the receiver`, {
        describe: async () => `outbox: ${JSON.stringify((await d.show(name)).pages.map((r) => [r.page.kind, r.status, r.last_error]))}`,
      });
      expect(JSON.parse(hit.body)).toMatchObject({ name, kind: 'budget', reason, urgent: true, state: expect.any(String) });
      const row = await waitUntil(
        async () => (await d.show(name)).pages.find((r) => r.page.kind === 'budget' && r.delivered_at !== null),
        SOON,
        `${name}: the budget row marked delivered`,
      );
      expect(row.page).toMatchObject({ name, kind: 'budget', reason });
      expect(srv.on('/hook').filter(isBudgetPage)).toHaveLength(1);
    }
  }, 60_000);
});

describe('daemon: stopping', () => {
  it('SIGTERM drains: the running job finishes (exit 0), queued jobs stay queued, exit 0, lock and socket gone, daemon.log says stopped', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const d = await h.daemon(state, ['--max-running', '1']);
    await d.submit('three', ['bash', '-c', 'for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.5; done']);
    await d.submit('waiting', ['echo', 'never-ran']);
    await d.waitLive('three', SOON);

    d.signal('SIGTERM');
    await d.proc.waitForLine((l) => l.includes('SIGTERM: draining'), SOON, 'the draining line');
    // While draining the daemon still answers; nothing new starts.
    const during = await d.jobs();
    expect(during.find((j) => j.name === 'waiting')!.state).toBe('queued');
    const exit = await d.proc.waitExit(20_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(d.proc.stderrLines).toContain('nightshift daemon: stopped');

    const { jobs, transitions } = readBoardFile(state);
    const by = (n: string) => jobs.find((j) => j.name === n)!;
    expect(by('three')).toMatchObject({ state: 'done', reason: { code: 'exit', exit_code: 0 }, exit: { code: 0, signal: null } });
    expect(ms(by('three').ended) - ms(by('three').started)).toBeGreaterThanOrEqual(2_900);
    expect(by('waiting')).toMatchObject({ state: 'queued', started: null, paths: null });
    expect(codes(transitions(by('waiting').id))).toEqual(['queued/submitted']);
    expect(existsSync(d.lock)).toBe(false);
    expect.soft(existsSync(d.socket), `socket ${d.socket} removed at exit`).toBe(false);
    // The daemon's log (README: state/daemon.N.log, pino JSON lines; the highest N is current) ends with "daemon stopped".
    const logs = readdirSync(state)
      .map((f) => /^daemon\.(\d+)\.log$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(b[1]) - Number(a[1]));
    expect(logs.length, `daemon.N.log in ${readdirSync(state).join(', ')}`).toBeGreaterThan(0);
    const lines = readJsonl(join(state, logs[0]![0]));
    expect(lines[0]).toMatchObject({ level: 30, msg: 'daemon started' });
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'daemon stopped' });
    expect(lines.map((l) => l.msg)).toContain('daemon stopping');
    // Afterwards the CLI says there is no daemon.
    const none = await runCli(['board', '--state', state]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`nightshift daemon --state ${state}`);
  }, 60_000);

  it('a second SIGTERM stops running jobs gracefully: done/interrupted, exit 0', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const d = await h.daemon(state);
    await d.submit('long', ['sleep', '60']);
    await d.waitLive('long', SOON);
    d.signal('SIGTERM');
    await d.proc.waitForLine((l) => l.includes('draining'), SOON, 'the draining line');
    d.signal('SIGTERM');
    expect(await d.proc.waitExit(15_000)).toEqual({ code: 0, signal: null });
    const { jobs } = readBoardFile(state);
    expect(jobs[0]).toMatchObject({ name: 'long', state: 'done', reason: { code: 'interrupted' } });
    expect(existsSync(d.lock)).toBe(false);
  }, 60_000);

  it('shutdown --now stops running jobs gracefully (done/interrupted) and the daemon exits 0', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const d = await h.daemon(state);
    await d.submit('long', ['sleep', '60']);
    await d.waitLive('long', SOON);
    const r = await d.ns('shutdown', ['--now']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('daemon stopping (now); 1 job(s) running\n');
    expect(await d.proc.waitExit(15_000)).toEqual({ code: 0, signal: null });
    expect(readBoardFile(state).jobs[0]).toMatchObject({ name: 'long', state: 'done', reason: { code: 'interrupted' } });
  }, 60_000);

  it('SIGTERM while a job is still starting: the drain waits for it too (no crash, the job finishes)', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const work = h.tempDir('ns-work-');
    const d = await h.daemon(state);
    // Straight over the socket, and the signal right on the reply: the job is between "launched" and "started".
    await call(state, 'submit', { spec: rawSpec('starting', ['bash', '-c', 'sleep 1; echo finished'], work) });
    d.signal('SIGTERM');
    const exit = await d.proc.waitExit(20_000);
    const job = readBoardFile(state).jobs[0]!;
    expect.soft(exit, `daemon exit; stderr:\n${d.proc.stderr}`).toEqual({ code: 0, signal: null });
    expect.soft(sr(job), 'the job ran to its end under the draining daemon').toBe('done/exit');
    expect.soft(d.proc.stderr).not.toMatch(/database connection is not open/);
  }, 60_000);
});

describe('daemon: send, key, attach', () => {
  it('send types a line, key presses Enter, attach shows the screen and types; Ctrl-] detaches and the job keeps running', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const script = [
      'read line; echo "got:$line"',
      'read l2; echo "key:[$l2]"',
      'read l3; echo "attached:$l3"',
      'for i in $(seq 1 600); do echo tick $i; sleep 0.1; done',
    ].join('; ');
    await d.submit('talk', ['bash', '-c', script]);
    const job = (await d.waitLive('talk', SOON)).job;
    const screenHas = (text: string) =>
      waitUntil(async () => ((await d.show('talk')).screen ?? '').includes(text), SOON, `"${text}" on the screen of talk`);

    const sent = await d.ns('send', ['talk', 'hello']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('sent to talk\n');
    await screenHas('got:hello');

    expect((await d.ns('send', ['talk', 'abc', '--no-enter'])).code).toBe(0);
    const key = await d.ns('key', ['talk', 'enter']);
    expect(key.code, key.stderr).toBe(0);
    expect(key.stdout).toBe('pressed enter in talk\n');
    await screenHas('key:[abc]');

    // attach: the current screen first, then live output; typing goes to the job.
    const att = startCli(['attach', 'talk', '--state', d.state], { env: { NIGHTSHIFT_STATE: undefined } });
    await waitUntil(() => att.stdout.includes('key:[abc]'), SOON, 'the current screen on attach stdout', {
      describe: () => `attach stdout: ${JSON.stringify(att.stdout)} stderr: ${att.stderr}`,
    });
    expect(att.stdout).toContain('got:hello');
    att.write('via-attach\r');
    await waitUntil(() => att.stdout.includes('attached:via-attach') && att.stdout.includes('tick 3'), SOON, 'live output on attach stdout');
    att.write('\x1d');
    expect(await att.waitExit(SOON)).toEqual({ code: 0, signal: null });
    expect(att.stderr).toContain('detached from talk');

    // Detached: the job runs on (its screen keeps moving).
    const t1 = (await d.show('talk')).screen ?? '';
    await waitUntil(async () => ((await d.show('talk')).screen ?? '') !== t1, SOON, 'the screen to move after detach');
    const now = (await d.jobs()).find((j) => j.name === 'talk')!;
    expect(now.state).toBe('running');

    // logs --events: the job's structured log, readable.
    const logs = await d.ns('logs', ['talk', '--events']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/ info {2}job started /);

    // logs --events -f follows until the job ends.
    const follow = startCli(['logs', 'talk', '--events', '-f', '--state', d.state], { env: { NIGHTSHIFT_STATE: undefined } });
    await waitUntil(() => follow.stdout.includes('job started'), SOON, 'logs -f to print the log so far');
    expect(follow.exited).toBeUndefined();
    expect((await d.ns('cancel', ['talk'])).code).toBe(0);
    await d.waitState('talk', 'done', 'cancelled', SOON);
    expect(await follow.waitExit(SOON)).toEqual({ code: 0, signal: null });
    expect(follow.stdout).toMatch(/stopping job \{"cause":"cancelled"\}/);
    expect(follow.stdout).toMatch(/job ended/);
    const cast = await readCast(job.paths!.recording);
    expect(cast.events.filter((e) => e.code === 'i').map((e) => e.data)).toEqual(['hello\r', 'abc', '\r', 'via-attach\r']);
    const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data).join('');
    for (const s of ['got:hello', 'key:[abc]', 'attached:via-attach']) expect(out).toContain(s);
    expectInputError(await d.ns('send', ['talk', 'late']), /: job talk is done \(cancelled\b[^)]*\); nothing to send to$/);
  }, 60_000);
});
