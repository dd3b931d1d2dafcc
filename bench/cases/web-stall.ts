/**
 * The web view's worst main-thread stall while the job page shows
 * adversarial output, in Debian's headless Chromium (playwright-core) at
 * phone (390×844, touch) and laptop (1280×800) size, through a real daemon
 * (`--http`) and its terminal WebSocket. Per kind of output:
 *  - wide+combining: 0.9 MB of NFD kana (combining dakuten) and kanji file names on ten long lines
 *    (what froze the page for minutes with xterm's screen-reader mode);
 *  - long lines: 2 MB of ASCII in lines of 100 KB;
 *  - 10 MB burst: 10 MB of short lines at once.
 * The page's own probe, a 50 ms timer, records the longest gap between its
 * ticks from the moment the output starts until its last line is on the
 * page's plain-text screen. Goal: < 1 s. Smoke: the wide+combining kind at
 * 90 KB, phone only.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { Daemon } from '../lib/daemon.js';
import { logger, row, type CaseOptions, type CaseResult, type Row } from '../lib/types.js';

const GOAL_MS = 1000;
const CHROMIUM = process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium';
const END = 'END-OF-BURST';
const VIEWPORTS = { phone: { width: 390, height: 844 }, laptop: { width: 1280, height: 800 } } as const;

interface Kind {
  name: string;
  /** A script for node that prints the output (then END). */
  js: (scale: number) => string;
}

const KINDS: Kind[] = [
  {
    name: 'wide+combining',
    js: (s) => `const name = 'ガギグゲゴ_パピプペポ_ダヂヅデド'.normalize('NFD') + '_日本語の資料_漢字.txt';
let line = '', n = 0;
while (Buffer.byteLength(line) < ${90_000 * s}) line += (n++) + ' ' + name + '  ';
for (let i = 0; i < 10; i++) process.stdout.write(line + '\\r\\n');`,
  },
  { name: 'long lines', js: (s) => `const line = 'x'.repeat(100000) + '\\r\\n'; for (let i = 0; i < ${Math.max(1, 20 * s)}; i++) process.stdout.write(line);` },
  { name: '10 MB burst', js: (s) => `const line = 'output line of a build step, long enough to wrap nothing\\r\\n'; process.stdout.write(line.repeat(Math.floor(${10_000_000 * s} / line.length)));` },
];

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** One kind at one viewport: the worst gap in ms. */
async function measure(browser: Browser, d: Daemon, base: string, login: string, dir: string, kind: Kind, scale: number, viewport: keyof typeof VIEWPORTS): Promise<number> {
  const name = `${kind.name.replace(/\W+/g, '-')}-${viewport}`;
  const script = path.join(dir, `${name}.cjs`);
  writeFileSync(script, `${kind.js(scale)}\nprocess.stdout.write('\\r\\n${END}\\r\\n');\nsetInterval(() => {}, 1 << 30);\n`);
  const go = path.join(dir, `${name}.go`);
  await d.submit(name, ['bash', '-c', 'while [ ! -e "$1" ]; do sleep 0.2; done; exec "$2" "$3"', 'job', go, process.execPath, script], dir);
  const phone = viewport === 'phone';
  const context = await browser.newContext({ viewport: VIEWPORTS[viewport], ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __maxGap: number };
      let last = performance.now();
      w.__maxGap = 0;
      setInterval(() => {
        const now = performance.now();
        w.__maxGap = Math.max(w.__maxGap, now - last);
        last = now;
      }, 50);
    });
    await page.goto(login);
    await page.waitForSelector('#who');
    await page.goto(`${base}/jobs/${encodeURIComponent(name)}`);
    await page.waitForFunction(() => document.querySelector('#term-status')?.textContent?.includes('live'), null, { timeout: 30_000 });
    await page.evaluate(() => void ((window as unknown as { __maxGap: number }).__maxGap = 0));
    writeFileSync(go, '');
    await page.waitForFunction((end) => document.querySelector('#term-text')?.textContent?.includes(end), END, { timeout: 600_000, polling: 200 });
    return await page.evaluate(() => (window as unknown as { __maxGap: number }).__maxGap);
  } finally {
    await context.close();
    await d.call('cancel', { job: name }).catch(() => undefined);
  }
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-web-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const d = await Daemon.start(opts.root, path.join(dir, 'state'), ['--http', `127.0.0.1:${port}`, '--max-running', '8']);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
  const rows: Row[] = [];
  const details: Array<{ kind: string; viewport: string; worst_ms: number }> = [];
  try {
    const scale = opts.smoke ? 0.1 : 1;
    const kinds = opts.smoke ? KINDS.slice(0, 1) : KINDS;
    const viewports = opts.smoke ? (['phone'] as const) : (['phone', 'laptop'] as const);
    for (const kind of kinds)
      for (const viewport of viewports) {
        // A fresh login per page: a sign-in code is single-use.
        const { stdout } = await promisify(execFile)(process.execPath, [path.join(opts.root, 'bin', 'nightshift.js'), 'web', 'token', `p${details.length}`, '--role', 'operator', '--json', '--state', d.state]);
        const login = (JSON.parse(stdout) as { login_url: string }).login_url;
        const worst = await measure(browser, d, base, login, dir, kind, scale, viewport);
        log(`${kind.name} ${viewport}: worst stall ${Math.round(worst)} ms`);
        details.push({ kind: kind.name, viewport, worst_ms: Math.round(worst) });
        rows.push(row(`web page worst stall, ${kind.name}, ${viewport}`, Math.round(worst), 'ms', { goal: `< ${GOAL_MS} ms`, pass: worst < GOAL_MS }));
      }
  } finally {
    await browser.close().catch(() => undefined);
    await d.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { case: 'web-stall', rows, details };
}
