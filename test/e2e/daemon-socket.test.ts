/**
 * The daemon's control socket under bad input and load, and CLI errors
 * that name the real cause (points 6 and 8). Real daemons, real
 * processes, a private state directory each; raw `net` clients where the
 * point is what the socket does with bytes no CLI would send.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../../src/daemon/client.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { testScopes, waitUntil, type DaemonProc } from '../helpers/daemon.js';

/** The test's own folders, daemons and servers; closed by afterEach. */
const scope = testScopes();

const SOON = 15_000;
const MB = 1024 * 1024;
const ASK = ['bash', '-c', 'read -p "Continue? [y/N] " a; echo got:$a'];

interface Reply {
  v: number;
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { kind: string; message: string };
}

/** A client that speaks raw bytes to the socket and records every line and the close. */
class Raw {
  readonly replies: Reply[] = [];
  closed = false;
  private buf = '';
  readonly sock: Socket;

  constructor(path: string) {
    this.sock = connect(path);
    this.sock.setEncoding('utf8');
    this.sock.on('data', (c: string) => {
      this.buf += c;
      for (let nl = this.buf.indexOf('\n'); nl !== -1; nl = this.buf.indexOf('\n')) {
        this.replies.push(JSON.parse(this.buf.slice(0, nl)) as Reply);
        this.buf = this.buf.slice(nl + 1);
      }
    });
    this.sock.on('error', () => undefined);
    this.sock.on('close', () => (this.closed = true));
  }

  opened(): Promise<this> {
    return new Promise((resolve, reject) => {
      this.sock.once('connect', () => resolve(this));
      this.sock.once('error', reject);
    });
  }

  replyCount(n: number, what: string): Promise<Reply[]> {
    return waitUntil(() => this.replies.length >= n && this.replies, 5_000, `${n} repl(ies) to ${what}`, {
      every: 20,
      describe: () => `got ${JSON.stringify(this.replies)}`,
    });
  }

  waitClosed(what: string): Promise<true> {
    return waitUntil(() => this.closed, 5_000, `the daemon to close the connection after ${what}`, { every: 20 });
  }

  /** Streams `total` bytes with no newline, in 64 KB chunks, until sent or the daemon closes (a reply does not stop it). */
  async flood(total: number): Promise<number> {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    while (sent < total && !this.closed) {
      const more = this.sock.write(chunk);
      sent += chunk.length;
      if (!more) await new Promise<void>((r) => (this.closed ? r() : (this.sock.once('drain', r), this.sock.once('close', r))));
    }
    return sent;
  }

  end(): void {
    this.sock.destroy();
  }
}

/** One line sent on a fresh connection → its one reply. */
async function exchange(d: DaemonProc, line: string): Promise<Reply> {
  const c = await new Raw(d.socket).opened();
  c.sock.write(`${line}\n`);
  const [r] = await c.replyCount(1, line);
  c.end();
  return r!;
}

const rssKb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('control socket: every line gets a reply', () => {
  it('nonsense lines each get an input error (on their own connection and all on one); the daemon still answers status', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const nonsense: Array<[string, RegExp]> = [
      ['{}', /malformed request/],
      ['[]', /expected a JSON object/],
      ['{"v":1}', /malformed request: id: .*cmd: /],
      ['null', /expected a JSON object/],
      ['5', /expected a JSON object/],
      ['not json', /not JSON/],
      ['{"v":1,"id":"x","cmd":"status"}', /malformed request: id:/],
      ['{"v":1,"id":3,"cmd":"show","args":[]}', /args/],
      ['{"v":1,"id":4,"cmd":"show","args":{"job":5}}', /bad arguments for "show": job: .*usage: show \{job\}/],
      ['{"v":1,"id":5,"cmd":"board","args":{"x":1}}', /bad arguments for "board".*"x"/],
      ['{"v":1,"id":6,"ok":true,"result":1}', /malformed request/],
      ['{"v":1,"id":7,"input":"typed"}', /no open stream with id 7/],
    ];
    for (const [line, pattern] of nonsense) {
      const r = await exchange(d, line);
      expect(r, line).toMatchObject({ v: 1, ok: false, error: { kind: 'input', message: expect.stringMatching(pattern) } });
    }
    const c = await new Raw(d.socket).opened();
    c.sock.write(`${nonsense.map(([l]) => l).join('\n')}\n${JSON.stringify({ v: 1, id: 99, cmd: 'status' })}\n`);
    const all = await c.replyCount(nonsense.length + 1, 'every line on one connection');
    expect(all.slice(0, -1).map((r) => r.ok)).toEqual(nonsense.map(() => false));
    expect(all.at(-1)).toMatchObject({ id: 99, ok: true, result: { pid: d.pid } });
    c.end();
  }, 60_000);

  it('__proto__, constructor, toString are unknown commands (nothing logged as a failure); status still answers', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    for (const [i, cmd] of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'].entries()) {
      const r = await exchange(d, JSON.stringify({ v: 1, id: i + 1, cmd, args: {} }));
      expect(r, cmd).toMatchObject({ id: i + 1, ok: false, error: { kind: 'input', message: expect.stringContaining(`unknown command "${cmd}"`) } });
    }
    expect(await call(d.state, 'status')).toMatchObject({ pid: d.pid });
    const log = await waitUntil(() => logText(d).includes('daemon started') && logText(d), SOON, 'the daemon log');
    expect(log).not.toMatch(/request failed|TypeError/);
  }, 60_000);

  it('a handler that breaks says so ("internal error in handler"), and the daemon log has the cause', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('hi', ['echo', 'hi']);
    const job = await d.waitState('hi', 'done', 'exit', SOON);
    // A log that cannot be read: a directory where the file was.
    rmSync(job.paths!.log);
    mkdirSync(job.paths!.log);
    const r = await exchange(d, JSON.stringify({ v: 1, id: 4, cmd: 'logs', args: { job: 'hi' } }));
    expect(r).toMatchObject({ id: 4, ok: false, error: { kind: 'internal', message: expect.stringMatching(/^internal error in handler "logs": .*EISDIR/) } });
    const cli = await d.ns('logs', ['hi', '--events']);
    expect(cli.code).toBe(70);
    expect(cli.stderrLines).toEqual([expect.stringMatching(/^nightshift: internal error in handler "logs": .*EISDIR.*daemon log/)]);
    const line = await waitUntil(() => logLines(d).find((l) => l.includes('internal error in handler')), SOON, 'the failure in the daemon log');
    expect(line).toMatch(/"command":"logs"/);
    // The cause's own stack, where the read failed, not only the wrapper's.
    expect(line).toMatch(/caused by: Error: EISDIR[^"]*\\n\s+at /);
  }, 60_000);
});

describe('control socket: limits', () => {
  it('a 2 MB line without a newline: error, connection closed; 25 such clients at once (50 MB) grow the daemon < 100 MB', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const one = await new Raw(d.socket).opened();
    await one.flood(2 * MB);
    const [r] = await one.replyCount(1, 'a 2 MB line');
    expect(r).toMatchObject({ ok: false, error: { kind: 'input', message: expect.stringMatching(/message too long.*1048576 bytes/) } });
    await one.waitClosed('a 2 MB line');

    const before = rssKb(d.pid);
    const many = await Promise.all(Array.from({ length: 25 }, () => new Raw(d.socket).opened()));
    const sent = await Promise.all(many.map((c) => c.flood(2 * MB)));
    for (const c of many) {
      const [e] = await c.replyCount(1, 'a flood');
      expect(e?.error?.message).toMatch(/message too long/);
      await c.waitClosed('a flood');
    }
    const grownMb = (rssKb(d.pid) - before) / 1024;
    await ctx.annotate(`daemon RSS grew ${grownMb.toFixed(1)} MB; clients wrote ${(sent.reduce((a, b) => a + b, 0) / MB).toFixed(0)} MB`);
    expect(grownMb, `daemon RSS grew ${grownMb.toFixed(1)} MB`).toBeLessThan(100);
    expect(await call(d.state, 'status')).toMatchObject({ pid: d.pid });
  }, 90_000);

  it('70 connections at once: the 6 over the cap of 64 get an error and are closed; the rest are served; status answers after', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const conns = await Promise.all(Array.from({ length: 70 }, () => new Raw(d.socket).opened()));
    const refused = await waitUntil(() => {
      const r = conns.filter((c) => c.replies.length > 0 && c.closed);
      return r.length >= 6 && r;
    }, SOON, '6 connections refused', { describe: () => `${conns.filter((c) => c.replies.length).length} with a reply` });
    for (const c of refused) expect(c.replies[0]?.error?.message).toMatch(/too many connections.*64/);
    const kept = conns.filter((c) => !refused.includes(c));
    expect(kept).toHaveLength(64);
    expect(kept.every((c) => !c.closed && c.replies.length === 0)).toBe(true);
    kept[0]!.sock.write(`${JSON.stringify({ v: 1, id: 1, cmd: 'status' })}\n`);
    expect((await kept[0]!.replyCount(1, 'status on a kept connection'))[0]).toMatchObject({ ok: true });
    for (const c of conns) c.end();
    await waitUntil(async () => ((await call(d.state, 'status')) as { pid: number }).pid === d.pid, SOON, 'status after closing them all');
  }, 60_000);
});

function logLines(d: DaemonProc): string[] {
  return logText(d).split('\n').filter(Boolean);
}

function logText(d: DaemonProc): string {
  const file = join(d.state, 'daemon.1.log');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Runs `nightshift ARGS…` as uid/gid 65534 (nobody): another user on the same machine. */
function asNobody(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { uid: 65534, gid: 65534, cwd: ROOT, env: { PATH: process.env.PATH, HOME: '/tmp' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('errors that say the real cause', () => {
  it.runIf(process.getuid?.() === 0)('another uid hears "permission denied, the daemon belongs to uid 0", not "no daemon is running" (run dir closed, then socket closed)', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    chmodSync(state, 0o755); // others may look into the state directory, not into run/
    const d = await h.daemon(state);
    const closedDir = await asNobody(['board', '--state', state]);
    expect(closedDir.code, closedDir.stderr).toBe(2);
    expect(closedDir.stderr).toMatch(/^nightshift: permission denied .*the daemon belongs to uid 0 \(you are uid 65534\)/);
    // run/ traversable but the socket 0600: connect(2) is what says EACCES.
    chmodSync(join(state, 'run'), 0o711);
    const closedSocket = await asNobody(['board', '--state', state]);
    expect(closedSocket.code, closedSocket.stderr).toBe(2);
    expect(closedSocket.stderr).toMatch(/^nightshift: permission denied .*the daemon belongs to uid 0/);
    // The state directory itself closed: its owner is who to be.
    chmodSync(state, 0o700);
    const closedState = await asNobody(['board', '--state', state]);
    expect(closedState.code, closedState.stderr).toBe(2);
    expect(closedState.stderr).toMatch(/^nightshift: permission denied .*the state directory belongs to uid 0/);
    expect(await d.boardCli()).toEqual([]);
  }, 60_000);

  it('submit during a drain succeeds, queued, and says it starts when a daemon next starts (plain and --json)', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('long', ['sleep', '60']);
    await d.waitLive('long', SOON);
    expect((await d.ns('shutdown')).stdout).toMatch(/daemon stopping \(drain\)/);
    const plain = await d.ns('submit', ['--name', 'later', '--', 'echo', 'later']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^submitted later \(j-\S+\): queued; the daemon is draining \(shutdown\), so it starts when a daemon next starts\n$/);
    const json = await d.ns('submit', ['--name', 'later2', '--json', '--', 'echo', 'later2']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'later2', state: 'queued' });
    expect(json.stderrLines).toEqual(['nightshift: later2 queued; the daemon is draining (shutdown), so it starts when a daemon next starts']);
    // long is still in the daemon (running, or blocked as hung: sleep is silent); nothing new started.
    expect((await d.jobs()).map((j) => `${j.name}=${j.state === 'done' ? 'done' : j.name === 'long' ? 'live' : j.state}`)).toEqual([
      'long=live',
      'later=queued',
      'later2=queued',
    ]);
  }, 60_000);

  it('attach to a finished job says how it ended, exit 2, and never says "attached"', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    await d.submit('hi', ['echo', 'hi']);
    await d.waitState('hi', 'done', 'exit', SOON);
    const r = await d.ns('attach', ['hi']);
    expect(r.code).toBe(2);
    expect(r.stderrLines).toEqual(['nightshift: job hi is done (exit code 0); nothing to attach to']);
    expect(r.stdout).toBe('');
  }, 60_000);

  it('show prints pages and the detail of start-failed; logs of a job that failed to start says why; prompt_candidate.since is ISO', async (ctx) => {
    const h = scope(ctx);
    const srv = await h.server();
    const d = await h.daemon(h.stateDir(`notify:\n  notifiers:\n    - { kind: webhook, url: "${srv.url('/hook')}" }\n`));
    await d.submit('bad', ['nosuch-cmd-xyz']);
    await d.submit('ask', ASK);
    await d.waitState('bad', 'done', 'start-failed', SOON);
    await d.waitState('ask', 'blocked', 'prompt', SOON);
    await srv.waitHits('/hook', 1, SOON);

    const bad = await d.ns('show', ['bad']);
    expect.soft(bad.stdout).toMatch(/state: +done — start-failed: command not found: nosuch-cmd-xyz\n/);
    // A failed start pages, and show lists that page.
    expect.soft(bad.stdout).toMatch(/pages:\n +start-failed /);
    const logs = await d.ns('logs', ['bad']);
    expect.soft(logs.code).toBe(2);
    expect.soft(logs.stderrLines).toEqual(['nightshift: job bad failed to start: command not found: nosuch-cmd-xyz']);

    const shown = await waitUntil(async () => {
      const s = await d.showCli('ask');
      return s.pages.some((p) => p.status === 'delivered') && s;
    }, SOON, 'the page marked delivered');
    const since = (shown.signals!.prompt_candidate as { since: unknown }).since;
    expect.soft(since).toBe(new Date(Date.parse(String(since))).toISOString());
    const ask = await d.ns('show', ['ask']);
    for (const p of shown.pages) expect.soft(ask.stdout).toMatch(new RegExp(`\\n {4}${p.page.kind} +${p.status} +round ${p.round} +${p.notifier}`));
    expect.soft(ask.stdout).toMatch(/pages:\n {4}prompt +delivered +round 1 /);
  }, 60_000);

  it('the start line names the current log file (daemon.1.log; after a restart the highest N there)', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const logOf = async (d: DaemonProc) => /, log (\S+), notifiers: /.exec(await d.proc.waitForLine((l) => l.startsWith('nightshift daemon: pid'), SOON, 'start line'))![1]!;
    const first = await h.daemon(state);
    expect(await logOf(first)).toBe(join(state, 'daemon.1.log'));
    await first.stop();
    writeFileSync(join(state, 'daemon.7.log'), '');
    const second = await h.daemon(state);
    const file = await logOf(second);
    expect(file).toBe(join(state, 'daemon.7.log'));
    await waitUntil(() => readFileSync(file, 'utf8').includes('daemon started'), SOON, `"daemon started" in ${file}`);
  }, 60_000);

  it('every <duration> flag says its unit in --help (e.g. 250ms, 90s)', async () => {
    for (const verb of ['daemon', 'submit', 'run', 'resume', 'drill']) {
      const help = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [BIN, verb, '--help'], { cwd: ROOT });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
        child.on('close', () => resolve(out));
      });
      // An option's text runs on over indented lines until the next option.
      const options = help.replace(/\n {10,}/g, ' ').split('\n').filter((l) => l.includes('<duration>'));
      expect(options.length, `${verb} --help`).toBeGreaterThan(0);
      for (const o of options) expect(o, `${verb}: ${o}`).toMatch(/e\.g\. \d+ms, \d+s/);
    }
  }, 60_000);
});
