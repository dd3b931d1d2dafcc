/**
 * What an open board costs and how soon it tells: 55 jobs (smoke: 6), half
 * blocked at a `[y/N]` question, half printing a line a second, on a daemon
 * with `--http`; the board open in Debian's headless Chromium, signed in.
 * Bytes the page received per minute (on the wire: compressed bodies and
 * headers, from the DevTools protocol) while the board is idle, and while
 * one short job starts and ends every few seconds; then the time from a job
 * blocking (the board's blocked_since) to its row on the page.
 * Run with `--root` at an older checkout to measure the page it served.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { Daemon } from '../lib/daemon.js';
import { median, sleep } from '../lib/stats.js';
import { logger, row, type CaseOptions, type CaseResult } from '../lib/types.js';

const CHROMIUM = process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium';
const ASK = ['bash', '-c', 'read -p "Continue with the upgrade? [y/N] " a'];
const TICK = ['bash', '-c', 'while :; do echo tick; sleep 1; done'];
const CHURN_EVERY_MS = 4_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

/** Bytes on the wire per request: what arrived so far, then the total (headers too) once it finished. */
class WireBytes {
  private readonly bytes = new Map<string, number>();
  constructor(cdp: CDPSession) {
    cdp.on('Network.dataReceived', (e) => this.bytes.set(e.requestId, (this.bytes.get(e.requestId) ?? 0) + e.encodedDataLength));
    cdp.on('Network.loadingFinished', (e) => this.bytes.set(e.requestId, Math.max(this.bytes.get(e.requestId) ?? 0, e.encodedDataLength)));
  }
  total(): number {
    let n = 0;
    for (const b of this.bytes.values()) n += b;
    return n;
  }
}

async function perMinute(wire: WireBytes, seconds: number): Promise<number> {
  const before = wire.total();
  await sleep(seconds * 1_000);
  return ((wire.total() - before) * 60) / seconds;
}

/** Ms from each job's blocked_since to its row showing blocked on the page. */
async function blockLatency(d: Daemon, page: Page, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const name = `late-${i}`;
    await d.submit(name, ASK, tmpdir());
    const seen = await page.evaluate(
      (job) =>
        new Promise<number>((resolve) => {
          const look = () => document.querySelector(`li[data-job="${job}"][data-state="blocked"]`) && (obs.disconnect(), resolve(Date.now()));
          const obs = new MutationObserver(look);
          obs.observe(document.body, { childList: true, subtree: true, attributes: true });
          look();
        }),
      name,
    );
    const job = (await d.board()).find((j) => j.name === name) as { blocked_since?: string } | undefined;
    const since = job?.blocked_since ? Date.parse(job.blocked_since) : NaN;
    if (Number.isFinite(since)) out.push(seen - since);
  }
  return out;
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const n = opts.smoke ? 6 : 55;
  const seconds = opts.smoke ? 10 : 60;
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-web-'));
  let daemon: Daemon | null = null;
  let browser: Browser | null = null;
  let churn: NodeJS.Timeout | null = null;
  try {
    const port = await freePort();
    daemon = await Daemon.start(opts.root, path.join(dir, 'state'), ['--max-running', String(n + 20), '--http', `127.0.0.1:${port}`]);
    for (let i = 0; i < n; i++) await daemon.submit(`web-${i}`, i % 2 ? TICK : ASK, tmpdir());
    await daemon.waitBoard((jobs) => jobs.filter((j) => j.state === 'blocked').length >= Math.ceil(n / 2), 120_000, 'the questions to block');
    const tok = spawnSync(process.execPath, [path.join(opts.root, 'bin', 'nightshift.js'), 'web', 'token', 'bench', '--role', 'viewer', '--json', '--state', daemon.state], { encoding: 'utf8' });
    const { login_url } = JSON.parse(tok.stdout) as { login_url: string };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const wire = new WireBytes(cdp);
    await page.goto(login_url);
    await page.waitForSelector('li[data-job][data-state="blocked"]');
    await sleep(3_000);
    const idle = await perMinute(wire, seconds);
    log(`web: idle board ${(idle / 1024).toFixed(1)} KB/min`);
    let k = 0;
    churn = setInterval(() => void daemon?.submit(`churn-${k++}`, ['sleep', '2'], tmpdir()).catch(() => undefined), CHURN_EVERY_MS);
    const busy = await perMinute(wire, seconds);
    clearInterval(churn);
    churn = null;
    log(`web: one job changing every ${CHURN_EVERY_MS / 1000} s: ${(busy / 1024).toFixed(1)} KB/min`);
    const late = await blockLatency(daemon, page, opts.smoke ? 2 : 5);
    log(`web: block to board ${late.map((m) => m.toFixed(0)).join(', ')} ms`);
    return {
      case: 'web',
      rows: [
        row(`open board, ${n} jobs, idle`, idle / 1024, 'KB/min', { goal: '< 10 KB/min', pass: idle / 1024 < 10 }),
        row(`open board, ${n} jobs, one changing every ${CHURN_EVERY_MS / 1000} s`, busy / 1024, 'KB/min', { goal: '< 200 KB/min', pass: busy / 1024 < 200 }),
        row('a job blocks → its row on the board (median)', median(late), 'ms', { goal: '< 1000 ms', pass: median(late) < 1000 }),
        row('a job blocks → its row on the board (max)', Math.max(...late), 'ms'),
      ],
      details: { jobs: n, seconds, idle_bytes_per_min: idle, busy_bytes_per_min: busy, latencies_ms: late },
    };
  } finally {
    if (churn) clearInterval(churn);
    await browser?.close().catch(() => undefined);
    await daemon?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
