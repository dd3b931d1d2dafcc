/**
 * What a job did that its row does not hold, kept on the board for the
 * morning digest (digest.ts): an answer a rule gave, a question put to a
 * person, a probe's verdict, the last lines and the cost of its end. On
 * the board rather than read back from each job's files: the daemon writes
 * the board behind its back (write-behind.ts), and the digest is one query.
 */
import type { Database } from './db.js';

export interface AnsweredNote {
  readonly kind: 'answered';
  readonly rule: string | null;
  readonly class: string | null;
  /** What was asked and what was typed, in words (the action's text). */
  readonly what: string;
  readonly layer: string;
}
export interface AskedNote {
  readonly kind: 'asked';
  readonly reason: string;
  readonly rule: string | null;
  readonly class: string | null;
  /** The question, or what the block is about, in one line. */
  readonly question: string;
}
export interface VerdictNote {
  readonly kind: 'verdict';
  readonly probe: string;
  readonly response: string;
}
export interface EndedNote {
  readonly kind: 'ended';
  /** The last non-blank lines of its final screen, redacted. */
  readonly lines: readonly string[];
  readonly steps: number | null;
  readonly tokens: number | null;
}
export type NoteDetail = AnsweredNote | AskedNote | VerdictNote | EndedNote;
export type JobNote = NoteDetail & { readonly job: string; readonly time: string };

interface NoteRow {
  job: string;
  time: string;
  kind: string;
  detail: string;
}

export class JobNotes {
  private readonly s;

  constructor(db: Database) {
    this.s = {
      insert: db.prepare<[string, string, string, string]>('INSERT INTO job_notes (job, time, kind, detail) VALUES (?, ?, ?, ?)'),
      // ISO times in one format compare as text.
      since: db.prepare<[string], NoteRow>('SELECT job, time, kind, detail FROM job_notes WHERE time >= ? ORDER BY seq'),
      remove: db.prepare<[string]>('DELETE FROM job_notes WHERE job = ?'),
    };
  }

  add(job: string, time: string, note: NoteDetail): void {
    const { kind, ...detail } = note;
    this.s.insert.run(job, time, kind, JSON.stringify(detail));
  }

  /** Every note at or after `time` (ISO), in the order written. */
  since(time: string): JobNote[] {
    return this.s.since.all(time).map((r) => ({ ...(JSON.parse(r.detail) as object), kind: r.kind, job: r.job, time: r.time }) as JobNote);
  }

  /** Inside the caller's transaction, with the job's row. */
  remove(job: string): void {
    this.s.remove.run(job);
  }
}
