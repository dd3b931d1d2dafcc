/** Messages between the daemon's thread and the board's disk writer (board-writer.ts). */

/** One write as the daemon made it: a prepared statement's SQL and its arguments, or SQL for exec (args null). */
export type WriteStep = [sql: string, args: unknown[] | null];

export type WriterRequest =
  /** Whole transactions, in the order they committed in memory; seq counts the daemon's batches. */
  | { kind: 'write'; seq: number; steps: WriteStep[] }
  /** Write what is queued, then close board.sqlite. */
  | { kind: 'close' }
  /** Closing took too long (the disk refuses the writes): drop what is queued and close. */
  | { kind: 'abandon' };

export type WriterReply =
  /** Every batch up to seq is on disk. */
  | { kind: 'written'; seq: number }
  /** The batches up to seq could not be written; the writer retries them, in order. */
  | { kind: 'failed'; seq: number; message: string; code: string | null }
  | { kind: 'closed' };
