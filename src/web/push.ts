/**
 * News without polling: GET /api/v1/events, a server-sent event stream the
 * board and the job page listen to. It says *that* the board changed (its
 * version and the names of the jobs whose rows changed), never the rows:
 * the page then fetches the board conditionally (etag.ts), so one source
 * of truth serves both, and a viewer gets exactly what /jobs would give.
 *
 * The watch looks at the board at most every CHECK_MS while someone
 * listens, which is also the debounce: a burst of writes is one event.
 * It asks the board for its rows only when the daemon's board database
 * counted a write since the last look (one tiny query otherwise), and in
 * any case every FULL_CHECK_MS (a fleet board changes elsewhere).
 */
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { NO_STREAM } from '../api/command.js';
import { Emitter } from '../util/event.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import { API, authorize, type ApiDeps } from './api.js';
import { ownerOf } from './streams.js';
import type { WebHost } from './types.js';

export const EVENTS = `${API}/events`;

const CHECK_MS = 250;
const FULL_CHECK_MS = 5_000;
/** A comment line now and then: a proxy or a phone's carrier must not take a quiet stream for a dead one. */
const HEARTBEAT_MS = 25_000;
/** What the browser waits before it reconnects a dropped stream (EventSource's own retry). */
const RETRY_MS = 3_000;

/**
 * What a board event says: the board's version (a hash of what the rows
 * show), the jobs whose rows changed, and the blocked jobs with their
 * question, so a page in a background tab can tell a person of a new one
 * without fetching the board.
 */
export interface BoardChange {
  readonly version: string;
  readonly jobs: readonly string[];
  readonly blocked: readonly { readonly name: string; readonly question: string }[];
}

type Row = { readonly name: string; readonly state: string; readonly question?: string; readonly last_activity?: unknown };

export class BoardWatch implements Disposable {
  private readonly changes = new Emitter<BoardChange>({ onListenerError: () => undefined });
  private listeners = 0;
  private timer: NodeJS.Timeout | null = null;
  private rows = new Map<string, string>();
  private current: BoardChange | null = null;
  private writes = -1;
  private lastFull = 0;
  private checking = false;
  private readonly countWrites: () => number;

  constructor(
    private readonly host: Pick<WebHost, 'board'>,
    private readonly api: Pick<ApiDeps, 'commands' | 'now' | 'onError'>,
  ) {
    const stmt = host.board.db.prepare('SELECT total_changes() AS n');
    this.countWrites = () => (stmt.get() as { n: number }).n;
  }

  /** The board as of now (looked at first when nobody listened), then every change while subscribed. */
  async subscribe(listener: (c: BoardChange) => void): Promise<Disposable> {
    if (this.listeners === 0) await this.check(true);
    const sub = this.changes.event(listener);
    if (this.listeners++ === 0) this.timer = setInterval(() => void this.check(false), CHECK_MS).unref();
    return toDisposable(() => {
      sub.dispose();
      if (--this.listeners === 0) this.stop();
    });
  }

  get version(): BoardChange | null {
    return this.current;
  }

  dispose(): void {
    this.stop();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async check(force: boolean): Promise<void> {
    if (this.checking) return;
    const writes = this.countWrites();
    const now = this.api.now();
    if (!force && writes === this.writes && now - this.lastFull < FULL_CHECK_MS) return;
    this.checking = true;
    try {
      this.writes = writes;
      this.lastFull = now;
      const board = (await this.api.commands.run('board', {}, NO_STREAM)) as { jobs: Row[] };
      this.take(board.jobs);
    } catch (e) {
      this.api.onError(e);
    } finally {
      this.checking = false;
    }
  }

  /** Rows compared as the board shows them: a job's heartbeat (last_activity) alone is no news. */
  private take(jobs: readonly Row[]): void {
    const next = new Map(jobs.map(({ last_activity: _, ...row }) => [row.name, JSON.stringify(row)]));
    const changed = [...next].filter(([name, row]) => this.rows.get(name) !== row).map(([name]) => name);
    const gone = [...this.rows.keys()].filter((name) => !next.has(name));
    const version = createHash('sha1').update([...next.values()].join('\n')).digest('base64url').slice(0, 16);
    if (this.current?.version === version) return;
    this.rows = next;
    const blocked = jobs.filter((j) => j.state === 'blocked').map((j) => ({ name: j.name, question: j.question ?? '' }));
    this.current = { version, jobs: [...changed, ...gone], blocked };
    this.changes.fire(this.current);
  }
}

/** GET /api/v1/events: the stream, for anyone who may read the board (viewers too); never compressed, so each event leaves at once. */
export function registerPush(app: FastifyInstance, host: Pick<WebHost, 'board'>, api: ApiDeps): void {
  const watch = new BoardWatch(host, api);
  app.addHook('onClose', async () => watch.dispose());
  app.get(EVENTS, { compress: false }, async (req, reply) => {
    const caller = await authorize(req, reply, api, 'viewer', 'events');
    if (!caller) return reply;
    const out = new PassThrough();
    // A question is job output: it goes through the web's one redaction, with each job's own secrets.
    const send = (c: BoardChange) => out.write(`event: board\ndata: ${JSON.stringify(redactChange(c, api))}\n\n`);
    out.write(`retry: ${RETRY_MS}\n\n`);
    const sub = await watch.subscribe(send);
    if (watch.version) send({ ...watch.version, jobs: [] });
    const beat = setInterval(() => out.write(': beat\n\n'), HEARTBEAT_MS).unref();
    const tracked = api.streams.track(ownerOf(caller), () => out.end());
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(beat);
      void sub.dispose();
      void tracked.dispose();
    };
    req.raw.once('close', end);
    out.once('close', end);
    return reply.header('content-type', 'text/event-stream; charset=utf-8').header('x-accel-buffering', 'no').send(out);
  });
}

function redactChange(c: BoardChange, api: ApiDeps): BoardChange {
  if (c.blocked.length === 0) return c;
  return { ...c, blocked: c.blocked.map((b) => ({ name: b.name, question: api.redaction.json(b.question, api.redaction.redactorOf(b.name)) })) };
}
