/**
 * A second process (as `nightshift board` would be) reads the board in a
 * tight loop while this one writes: it must never see SQLITE_BUSY nor a
 * job row that disagrees with its transition log.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { Board, boardPath } from './board.js';
import type { JobReason, JobState } from './types.js';

// Plain CommonJS so it runs under `node -e` without a build. Each read is one
// statement, hence one snapshot: the job's reason must be its last logged
// one, and `detail` (written as the log length) must match the log length.
const READER = `
const Database = require('better-sqlite3');
const [path, job] = process.argv.slice(1);
const SQL = \`SELECT j.state, j.reason,
  (SELECT count(*) FROM transitions t WHERE t.job = j.id) AS n,
  (SELECT t.state || ' ' || t.reason FROM transitions t WHERE t.job = j.id ORDER BY t.seq DESC LIMIT 1) AS last
  FROM jobs j WHERE j.id = ?\`;
// Re-opened every 50 reads, as successive \`nightshift board\` runs would.
let db, q;
function reopen() {
  if (db) db.close();
  db = new Database(path, { fileMustExist: true, timeout: 10000 });
  q = db.prepare(SQL);
}
const out = { reads: 0, errors: [], torn: [], distinct: 0 };
const seen = new Set();
const deadline = Date.now() + 20000;
while (Date.now() < deadline) {
  let r;
  try { if (out.reads % 50 === 0) reopen(); r = q.get(job); } catch (e) {
    out.errors.push(String(e.code || e.message));
    if (out.errors.length >= 20) break;
    continue;
  }
  out.reads++;
  const detail = JSON.parse(r.reason).detail;
  if (r.last !== r.state + ' ' + r.reason || (detail !== undefined && Number(detail) !== r.n)) out.torn.push(r);
  seen.add(r.n);
  if (out.reads === 1) process.stdout.write('ready\\n');
  if (r.state === 'done') break;
}
out.distinct = seen.size;
process.stdout.write(JSON.stringify(out) + '\\n');
`;

interface ReaderReport {
  reads: number;
  errors: string[];
  torn: unknown[];
  distinct: number;
}

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function startReader(path: string, job: string): { ready: Promise<void>; report: Promise<ReaderReport> } {
  const child = spawn(process.execPath, ['-e', READER, path, job], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout });
  let onReady: () => void = () => {};
  const ready = new Promise<void>((r) => (onReady = r));
  const report = new Promise<ReaderReport>((resolve, reject) => {
    let last = '';
    lines.on('line', (l) => (l === 'ready' ? onReady() : (last = l)));
    child.on('close', (code) => {
      if (code !== 0 || !last) reject(new Error(`reader exited ${code}: ${stderr}`));
      else resolve(JSON.parse(last) as ReaderReport);
    });
  });
  // A reader that dies or never reads must not leave the test waiting for "ready".
  void report.then(onReady, onReady);
  return { ready, report };
}

it('a second process reading in a loop never gets SQLITE_BUSY or a torn read', async () => {
  dir = mkdtempSync(join(tmpdir(), 'nightshift-board-proc-'));
  const board = Board.open(dir);
  try {
    const { id } = board.submit({
      name: 'busy', command: ['true'], cwd: '/', env: {}, policy: null, rules: null,
      budgets: { wall_ms: null, tokens: null, no_progress_ms: null }, priority: 0, after: [],
    }, 0);
    const reader = startReader(boardPath(dir), id);
    await reader.ready;
    for (let i = 0; i < 200; i++) {
      const [state, reason] = move(i);
      // detail = length of the log once this move is in it (submit is 1).
      board.transition(id, state, { ...reason, detail: String(i + 2) }, i + 1);
      // Let the reader interleave, and checkpoint so it also crosses WAL resets.
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 2));
      if (i % 50 === 49) board.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    const report = await reader.report;
    expect(report.errors).toEqual([]);
    expect(report.torn).toEqual([]);
    expect(report.reads).toBeGreaterThan(0);
    expect(report.distinct).toBeGreaterThan(1); // the reads really overlapped the writes
    expect(board.transitions(id)).toHaveLength(201);
  } finally {
    board.close();
  }
});

/** running, then blocked ⇄ running, ending done on the 200th move. */
function move(i: number): [JobState, JobReason] {
  if (i === 0) return ['running', { code: 'started' }];
  if (i === 199) return ['done', { code: 'exit', exit_code: 0, signal: null }];
  return i % 2 === 1 ? ['blocked', { code: 'hung' }] : ['running', { code: 'output' }];
}
