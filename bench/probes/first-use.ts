/**
 * A fresh daemon's event-loop delay (its own `status` figures, reset before
 * each step) as it takes its first jobs one at a time, 3 s apart: what a
 * first use costs the thread every other job shares (loading code, V8
 * compiling and optimising it). The figure is the loop-delay histogram's
 * interval, its own 10 ms included.
 *
 * Usage: node dist/bench/probes/first-use.js [prompt|flood|exit …] (default: prompt flood prompt flood)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Daemon } from '../lib/daemon.js';
import { repoRoot } from '../lib/results.js';
import { sleep } from '../lib/stats.js';

const COMMANDS: Record<string, string[]> = {
  prompt: ['bash', '-c', 'read -p "Drop the old tables now? [y/N] " a'],
  flood: ['sh', '-c', 'head -c 3000000 /dev/urandom | base64'],
  exit: ['sh', '-c', 'echo done'],
};

const kinds = process.argv.length > 2 ? process.argv.slice(2) : ['prompt', 'flood', 'prompt', 'flood'];
const unknown = kinds.find((k) => !(k in COMMANDS));
if (unknown !== undefined) {
  process.stderr.write(`first-use: unknown step ${JSON.stringify(unknown)}; steps are ${Object.keys(COMMANDS).join(', ')}\n`);
  process.exit(2);
}
const dir = mkdtempSync(path.join(tmpdir(), 'ns-first-use-'));
const daemon = await Daemon.start(repoRoot(), path.join(dir, 'state'));
try {
  await sleep(2_000);
  const idle = await daemon.loopDelay(true);
  console.log(`idle after start: max ${idle.max_ms} ms`);
  for (const [i, kind] of kinds.entries()) {
    const cwd = path.join(dir, `job-${i}`);
    mkdirSync(cwd);
    await daemon.submit(`${kind}-${i}`, COMMANDS[kind]!, cwd);
    await sleep(3_000);
    const r = await daemon.loopDelay(true);
    console.log(`${kind} (job ${i + 1}): max ${r.max_ms} ms, p99 ${r.p99_ms} ms`);
  }
} finally {
  await daemon.stop();
  rmSync(dir, { recursive: true, force: true });
}
