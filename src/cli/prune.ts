/** `nightshift prune --older-than 14d [--dry-run] [--json]` — old finished jobs leave the board, and their folders go. */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { Board, boardPath } from '../board/board.js';
import { DaemonLock } from '../daemon/lock.js';
import { daemonPaths, ensureRunDir } from '../daemon/paths.js';
import { pruneJobs, type PruneResult } from '../daemon/prune.js';
import { Outbox } from '../notify/outbox.js';
import { InputError } from '../util/errors.js';
import { formatSize } from '../util/size.js';
import { durationArg } from './common.js';
import { addStateFlag, boardUrlOf, callDaemon, printJson, stateDirOf, type StateFlag } from './daemon-client.js';

type PruneFlags = StateFlag & { olderThan: number; dryRun?: boolean; json?: boolean };

export function registerPrune(program: Command): void {
  addStateFlag(
    program
      .command('prune')
      .description('remove finished jobs that ended longer ago than a duration: board rows and job folders')
      .requiredOption('--older-than <duration>', 'jobs that ended longer ago than this, e.g. 14d, 36h', olderThan)
      .option('--dry-run', 'list what would be removed and the bytes it frees; remove nothing')
      .option('--json', 'the result as JSON'),
  ).action(async (f: PruneFlags) => {
    if (boardUrlOf(f)) throw new InputError('--board: prune works on one host\'s board and folders; give --state');
    const result = await prune(stateDirOf(f), f.olderThan, f.dryRun === true);
    if (f.json) printJson(result);
    else process.stdout.write(describe(result));
  });
}

/** A bare number here is the costliest slip there is (`14` read as 14 seconds removes almost everything): a unit is required. */
function olderThan(value: string): number {
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(value)) throw new InvalidArgumentError(`give a unit, e.g. ${value.trim()}d, ${value.trim()}h`);
  return durationArg('--older-than')(value);
}

/**
 * Through the daemon when one runs (it owns the board's writes); else on the
 * file, holding the daemon's lock meanwhile so no daemon starts under it.
 */
async function prune(stateDir: string, olderThanMs: number, dryRun: boolean): Promise<PruneResult> {
  const args = { older_than_ms: olderThanMs, dry_run: dryRun };
  if (!existsSync(boardPath(stateDir))) return { dry_run: dryRun, before: new Date(Date.now() - olderThanMs).toISOString(), jobs: [], bytes: 0 };
  const paths = daemonPaths(stateDir);
  ensureRunDir(paths);
  let lock: DaemonLock;
  try {
    lock = DaemonLock.acquire(paths.lock);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return callDaemon({ state: stateDir }, 'prune', args);
  }
  try {
    const board = Board.open(stateDir);
    try {
      const outbox = new Outbox(board.db);
      const now = Date.now();
      return await pruneJobs(board, stateDir, { olderThanMs, now, dryRun, closePages: (id) => outbox.close(id, 'resolved', now) });
    } finally {
      board.close();
    }
  } finally {
    lock.release();
  }
}

function describe(r: PruneResult): string {
  if (r.jobs.length === 0) return `no finished job ended before ${r.before}\n`;
  const n = `${r.jobs.length} job${r.jobs.length === 1 ? '' : 's'}`;
  const head = r.dry_run ? `would remove ${n}, freeing ${formatSize(r.bytes)} (dry run: nothing removed)` : `removed ${n}, freed ${formatSize(r.bytes)}`;
  const width = Math.max(...r.jobs.map((j) => j.name.length));
  const rows = r.jobs.map((j) => `  ${j.name.padEnd(width)}  ended ${j.ended ?? '-'}  ${formatSize(j.bytes).padStart(8)}  ${j.dir ?? '(no folder)'}`);
  return `${head}:\n${rows.join('\n')}\n`;
}
