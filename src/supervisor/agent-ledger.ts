/**
 * What an agent job has read of its transcript and spent up to there, kept
 * in the job's folder (agent.json) so a daemon that adopts the job after a
 * restart goes on from it: its steps and tokens are not counted from zero,
 * and what the agent did while no daemon ran is read, counted and judged.
 * The read position and the counts are taken together, once every event
 * read so far was handled, so they always agree; written behind (newest
 * content wins, from the thread pool), never on the event's path.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AtomicFile } from '../util/atomic-write.js';
import type { ReadPosition } from '../adapters/index.js';
import type { Spent } from '../probes/index.js';

export const LEDGER_FILE = 'agent.json';

const ledgerSchema = z.object({
  transcript: z.string(),
  lines: z.number().int().min(0),
  last_event: z.string().nullable(),
  steps: z.number().int().min(0),
  tokens: z.number().int().min(0),
});

export type AgentLedgerRecord = z.infer<typeof ledgerSchema>;

/** What the ledger reads of the job's agent, at one instant. */
export interface LedgerSource {
  /** Resolves with `read()` taken once nothing read is still waiting to be handled. */
  whenHandled<T>(read: () => T): Promise<T>;
  readonly position: ReadPosition | null;
  spent(): Spent;
}

export class AgentLedger {
  private readonly file: AtomicFile;
  private pending = false;

  constructor(
    dir: string,
    private readonly source: LedgerSource,
    onProblem: (e: Error) => void,
  ) {
    this.file = new AtomicFile(join(dir, LEDGER_FILE), onProblem);
  }

  /** Something was read: the ledger is written once it has been handled (many events, one write). */
  note(): void {
    if (this.pending) return;
    this.pending = true;
    void this.source
      .whenHandled(() => ({ pos: this.source.position, spent: this.source.spent() }))
      .then(({ pos, spent }) => {
        this.pending = false;
        if (!pos) return;
        const rec: AgentLedgerRecord = { transcript: pos.path, lines: pos.lines, last_event: pos.lastEvent, steps: spent.steps, tokens: spent.tokens };
        this.file.write(`${JSON.stringify(rec)}\n`);
      });
  }

  flushed(): Promise<void> {
    return this.file.flushed();
  }
}

/** The ledger a previous daemon left; null when there is none (the transcript was never found) or it cannot be read. */
export async function readLedger(dir: string): Promise<AgentLedgerRecord | null> {
  try {
    return ledgerSchema.parse(JSON.parse(await readFile(join(dir, LEDGER_FILE), 'utf8')));
  } catch {
    return null;
  }
}
