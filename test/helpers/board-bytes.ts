/** Every byte SQLite wrote for a state directory (the board file, its WAL and shared memory), to look for what must not be stored. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function boardBytes(stateDir: string): string {
  return readdirSync(stateDir)
    .filter((f) => f.startsWith('board.sqlite'))
    .map((f) => readFileSync(join(stateDir, f)).toString('latin1'))
    .join('');
}
