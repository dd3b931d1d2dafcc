/**
 * `nightshift logs NAME`: what the job printed, read from its recording on
 * disk and rendered as plain lines (CastText). The job is found on the board
 * read-only, so this works beside a daemon and with none; a `nightshift run`
 * job, which has a folder but no board row, is found by its folder's name.
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Board } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import { reasonText } from '../api/reason-text.js';
import { LineTail } from '../events/line-tail.js';
import { redactorFor, type Redactor } from '../notify/secrets.js';
import { CastText } from '../record/cast-text.js';
import { InputError, NotFoundError } from '../util/errors.js';

/**
 * How often a follower looks at the board, and how long output must rest
 * before the lines above the cursor show: longer than a spinner's frame
 * (about 100 ms), so a block redrawn from above shows once, not per frame.
 */
const POLL_MS = 150;
const QUIET_MS = 300;
/** A `run` job's folder: `<stamp>-<slug>-<4 hex>` (supervisor/job-dir.ts jobId). */
const RUN_DIR = /^\d{8}-\d{6}-(.+)-[0-9a-f]{4}$/;

interface OutputJob {
  readonly recording: string;
  /** The job's own secrets out of every line, as `show` does. */
  readonly redact: Redactor;
  /** Whether the board says it ended (a `run` job's end is only its recording's exit marker). */
  ended(): boolean;
  close(): void;
}

export interface OutputOptions {
  lines: number;
  follow: boolean;
}

export async function printOutput(stateDir: string, ref: string, o: OutputOptions): Promise<void> {
  const job = await findJob(stateDir, ref, o.follow);
  try {
    const sink = new LastLines(o.lines, job.redact);
    const feed = new RecordingFeed(sink.line);
    if (o.follow) await follow(job, feed, sink);
    else await readAll(job.recording, feed);
    feed.end();
    sink.goLive();
  } finally {
    job.close();
  }
}

async function findJob(stateDir: string, ref: string, wait: boolean): Promise<OutputJob> {
  const board = Board.openReadOnly(stateDir);
  const rec = board?.get(ref);
  if (!board || !rec) {
    board?.close();
    return runJob(stateDir, ref);
  }
  let now: JobRecord = rec;
  try {
    while (!now.paths) {
      if (now.reason.code === 'start-failed') throw new InputError(`job ${now.name} failed to start: ${now.reason.detail ?? 'no detail recorded'}`);
      if (!wait || now.state === 'done') throw new InputError(`job ${now.name} has not started (${now.state}: ${reasonText(now.reason)}); no output yet`);
      await sleep(POLL_MS);
      now = board.require(rec.id);
    }
    if (now.reason.code === 'start-failed') throw new InputError(`job ${now.name} failed to start: ${now.reason.detail ?? 'no detail recorded'}`);
  } catch (e) {
    board.close();
    throw e;
  }
  return {
    recording: now.paths.recording,
    redact: redactorFor(now.env),
    // Gone from the board (pruned) is ended too.
    ended: () => (board.get(rec.id)?.state ?? 'done') === 'done',
    close: () => board.close(),
  };
}

/** A `nightshift run` job: its folder by id, else the newest folder of that name. */
async function runJob(stateDir: string, ref: string): Promise<OutputJob> {
  let dirs: string[] = [];
  try {
    dirs = await readdir(join(stateDir, 'jobs'));
  } catch {
    /* no jobs folder: nothing by that name */
  }
  const slug = ref.toLowerCase();
  const dir = dirs.includes(ref) ? ref : dirs.filter((d) => RUN_DIR.exec(d)?.[1] === slug).sort().at(-1);
  if (!dir) throw new NotFoundError(`no job "${ref}" in ${stateDir}; nightshift board lists them`);
  // `run` keeps no env of the job's own on disk: the recording is printed as written.
  return { recording: join(stateDir, 'jobs', dir, 'recording.cast'), redact: (s) => s, ended: () => false, close: () => undefined };
}

async function readAll(file: string, feed: RecordingFeed): Promise<void> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  try {
    let n = 0;
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) feed.line(line, ++n);
  } catch (e) {
    throw new InputError(`cannot read the recording ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** The recording so far, then what is appended, until its exit marker or the board says the job ended. */
async function follow(job: OutputJob, feed: RecordingFeed, sink: LastLines): Promise<void> {
  const tail = await LineTail.open(job.recording, {
    line: (text, n) => feed.line(text, n),
    restart: () => undefined,
    problem: (m) => process.stderr.write(`nightshift: ${m}\n`),
  });
  sink.goLive();
  let seen = feed.events;
  let quietSince = Date.now();
  while (!feed.exited && !job.ended()) {
    await sleep(POLL_MS);
    if (feed.events !== seen) {
      seen = feed.events;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= QUIET_MS) feed.settle();
  }
  await tail.close({ flushPartial: true });
}

/** asciicast lines in, CastText out: the header's height, output, resizes, the cap's notice and the exit marker. */
class RecordingFeed {
  events = 0;
  exited = false;
  private readonly text: CastText;

  constructor(private readonly emit: (line: string) => void) {
    this.text = new CastText(24, emit);
  }

  line(raw: string, n: number): void {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return; // A line cut short by a crash, or a v3 comment: the rest still reads.
    }
    if (n === 1) return this.header(value);
    if (!Array.isArray(value) || typeof value[1] !== 'string') return;
    this.events++;
    const [, code, data] = value as [unknown, string, unknown];
    if (code === 'o' && typeof data === 'string') this.text.write(data);
    else if (code === 'r' && typeof data === 'string') this.text.resize(Number(data.split('x')[1]) || 24);
    else if (code === 'x' || (code === 'm' && String(data).startsWith('exit:'))) this.exited = true;
    else if (code === 'm' && String(data).startsWith('recording-cap:')) {
      this.text.end();
      this.emit(`[nightshift: ${String(data)}]`);
    }
  }

  settle(): void {
    this.text.settle();
  }

  end(): void {
    this.text.end();
  }

  private header(h: unknown): void {
    const o = (h ?? {}) as { height?: unknown; term?: { rows?: unknown } };
    const rows = Number(o.height ?? o.term?.rows);
    if (Number.isInteger(rows) && rows > 0) this.text.resize(rows);
  }
}

/** The last `n` lines until the reader has caught up, then every line as it comes. */
class LastLines {
  private held: string[] = [];
  private live = false;

  constructor(
    private readonly n: number,
    private readonly redact: Redactor,
  ) {}

  readonly line = (line: string): void => {
    const shown = this.redact(line);
    if (this.live) return void process.stdout.write(`${shown}\n`);
    this.held.push(shown);
    if (this.held.length > 2 * this.n + 1024) this.held = this.held.slice(-this.n);
  };

  goLive(): void {
    const last = this.n === 0 ? [] : this.held.slice(-this.n);
    if (last.length) process.stdout.write(`${last.join('\n')}\n`);
    this.held = [];
    this.live = true;
  }
}
