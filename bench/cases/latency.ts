/**
 * Live detection latency through a real daemon (`--tool-gap 10s
 * --screen-quiet 3s`, the default 1.5 s settle). Each job waits a second
 * (so it is live and supervised), writes the time to a marker file and at
 * once shows what is measured; the latency is the board's `blocked`
 * transition time minus the marker's:
 *  - a known line prompt, `read -p "… [y/N] "` (rule generic-yes-no): goal median ≤ 0.5 s;
 *  - an agent-style permission dialog drawn by a Node script (`Do you want to proceed?` /
 *    `❯ 1. Yes` / `2. No` / `Esc to cancel`, rule claude-code-permission): goal median ≤ 1.5 s;
 *  - a hang (`sleep`, nothing moving): blocked/hung at the 10 s tool gap ± 1 s.
 * 20 trials each, one at a time (smoke: 3); the hangs (5, smoke: 1) run
 * meanwhile, as they only sleep.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Daemon } from '../lib/daemon.js';
import { max, median, sleep } from '../lib/stats.js';
import { logger, row, type CaseOptions, type CaseResult } from '../lib/types.js';

const TOOL_GAP_S = 10;
const LINE_GOAL_S = 0.5;
const DIALOG_GOAL_S = 1.5;
const HANG_TOLERANCE_S = 1;

const DIALOG_JS = `
const fs = require('node:fs');
setTimeout(() => {
  const lines = [
    '\\x1b[2J\\x1b[H╭───────────────────────────────────────────────╮',
    '│ Bash command                                  │',
    '│                                               │',
    '│   rm -rf build/                               │',
    '│   Remove the old build output                 │',
    '╰───────────────────────────────────────────────╯',
    '',
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    "   2. Yes, and don't ask again for rm commands in this folder",
    '   3. No, and tell Claude what to do differently (esc)',
    '',
    ' Esc to cancel',
  ];
  fs.writeFileSync(process.argv[2], String(Date.now()));
  process.stdout.write(lines.join('\\r\\n'));
  process.stdout.write('\\x1b[?25l');
}, 1000);
setInterval(() => {}, 1 << 30);
`;

interface Trial {
  kind: 'line' | 'dialog' | 'hang';
  name: string;
  marker: string;
  seconds?: number;
  state?: string;
}

function command(kind: Trial['kind'], marker: string, dialogFile: string): string[] {
  switch (kind) {
    case 'line':
      return ['bash', '-c', `sleep 1; date +%s%3N > '${marker}'; read -p "Proceed with the schema upgrade? [y/N] " a`];
    case 'dialog':
      return [process.execPath, dialogFile, marker];
    case 'hang':
      // The hang clock runs from the last sign of progress, and a child going idle is one, and so is disk I/O
      // (README: How the watchdog decides): so the last thing is the screen's new line, stamped by a builtin into
      // a tmpfs file (no storage I/O; see the marker's path), and sleep takes bash's place.
      return ['bash', '-c', `sleep 3; echo "working on it"; echo $EPOCHREALTIME > '${marker}'; exec sleep 600`];
  }
}

/** `date +%s%3N` (ms) or bash's $EPOCHREALTIME (seconds, with a fraction). */
const markerMs = (file: string): number => {
  const text = readFileSync(file, 'utf8').trim();
  return text.includes('.') ? Math.round(Number(text) * 1000) : Number(text);
};

/** Waits until the job has a `blocked` transition; returns its time minus the marker's, in seconds, and its state/reason. */
async function await_(d: Daemon, t: Trial, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const shown = await d.show(t.name);
    const blocked = shown.transitions.find((x) => x.state === 'blocked');
    if (blocked) {
      t.seconds = (Date.parse(blocked.time) - markerMs(t.marker)) / 1000;
      t.state = `${blocked.state}/${blocked.reason.code}`;
      return;
    }
    if (shown.job.state === 'done') throw new Error(`latency trial ${t.name} ended ${shown.job.state}/${shown.job.reason.code} without blocking`);
    if (Date.now() > deadline) throw new Error(`latency trial ${t.name} did not block within ${ms} ms (now ${shown.job.state}/${shown.job.reason.code})`);
    await sleep(100);
  }
}

export async function run(opts: CaseOptions): Promise<CaseResult> {
  const log = logger(opts);
  const trials = opts.smoke ? 3 : 20;
  const hangs = opts.smoke ? 1 : 5;
  const dir = mkdtempSync(path.join(tmpdir(), 'ns-bench-latency-'));
  const dialogFile = path.join(dir, 'dialog.cjs');
  writeFileSync(dialogFile, DIALOG_JS);
  let daemon: Daemon | null = null;
  try {
    daemon = await Daemon.start(opts.root, path.join(dir, 'state'), ['--tool-gap', `${TOOL_GAP_S}s`, '--screen-quiet', '3s', '--max-running', String(hangs + 4)]);
    const d = daemon;
    let seq = 0;
    const start = async (kind: Trial['kind']): Promise<Trial> => {
      const name = `${kind}-${seq++}`;
      // /dev/shm: a tmpfs, whose writes are no storage I/O, so writing the stamp is not activity of the job's.
      const t: Trial = { kind, name, marker: kind === 'hang' && existsSync('/dev/shm') ? path.join('/dev/shm', `${path.basename(dir)}-${name}.t`) : path.join(dir, `${name}.t`) };
      await d.submit(name, command(kind, t.marker, dialogFile), dir);
      return t;
    };
    log(`latency: ${trials} line prompts and ${trials} dialogs one at a time, ${hangs} hang(s) meanwhile`);
    const hangTrials = await Promise.all(Array.from({ length: hangs }, () => start('hang')));
    const hangDone = Promise.all(hangTrials.map((t) => await_(d, t, (TOOL_GAP_S + 30) * 1000)));
    hangDone.catch(() => undefined);
    const one: Trial[] = [];
    for (let i = 0; i < trials; i++) {
      for (const kind of ['line', 'dialog'] as const) {
        const t = await start(kind);
        await await_(d, t, 20_000);
        one.push(t);
        await d.call('cancel', { job: t.name });
      }
    }
    await hangDone;
    const secs = (kind: Trial['kind']) => [...one, ...hangTrials].filter((t) => t.kind === kind).map((t) => t.seconds!);
    const states = (kind: Trial['kind']) => [...new Set([...one, ...hangTrials].filter((t) => t.kind === kind).map((t) => t.state!))];
    const line = secs('line');
    const dialog = secs('dialog');
    const hang = secs('hang');
    const hangErr = max(hang.map((s) => Math.abs(s - TOOL_GAP_S)));
    log(`  line prompt median ${median(line).toFixed(2)} s (${states('line').join(', ')}), dialog ${median(dialog).toFixed(2)} s (${states('dialog').join(', ')}), hang ${hang.map((s) => s.toFixed(2)).join(', ')} s (${states('hang').join(', ')})`);
    const stateOk = (kind: Trial['kind'], want: string) => states(kind).every((s) => s === want);
    const rows = [
      row(`line prompt [y/N] → blocked, median of ${line.length}`, median(line), 's', { goal: `≤ ${LINE_GOAL_S} s, blocked/prompt`, pass: median(line) <= LINE_GOAL_S && stateOk('line', 'blocked/prompt') }),
      row(`line prompt [y/N] → blocked, max of ${line.length}`, max(line), 's'),
      row(`agent permission dialog → blocked, median of ${dialog.length}`, median(dialog), 's', { goal: `≤ ${DIALOG_GOAL_S} s, blocked/prompt`, pass: median(dialog) <= DIALOG_GOAL_S && stateOk('dialog', 'blocked/prompt') }),
      row(`agent permission dialog → blocked, max of ${dialog.length}`, max(dialog), 's'),
      row(`hang → blocked/hung (tool gap ${TOOL_GAP_S} s), median of ${hang.length}`, median(hang), 's', {
        goal: `${TOOL_GAP_S} ± ${HANG_TOLERANCE_S} s (every trial), blocked/hung`,
        pass: hangErr <= HANG_TOLERANCE_S && stateOk('hang', 'blocked/hung'),
      }),
    ];
    return {
      case: 'latency',
      rows,
      details: {
        toolGapS: TOOL_GAP_S,
        hangWorstErrorS: hangErr,
        trials: [...one, ...hangTrials].map(({ kind, name, seconds, state }) => ({ kind, name, seconds, state })),
        states: { line: states('line'), dialog: states('dialog'), hang: states('hang') },
      },
    };
  } finally {
    await daemon?.stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    if (existsSync('/dev/shm')) for (const f of readdirSync('/dev/shm')) if (f.startsWith(`${path.basename(dir)}-`)) rmSync(path.join('/dev/shm', f), { force: true });
  }
}
