/**
 * The pager: turns "this job is blocked" into a person's phone buzzing,
 * exactly once per episode and notifier, again every `repage_after` until
 * someone acknowledges, never in quiet hours unless urgent, and never lost
 * across a daemon restart (everything lives in the outbox table).
 *
 * Deterministic core: time comes only from the injected Clock and nothing
 * here schedules itself; the daemon calls tick() on a timer.
 */
import type Sqlite from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import type { Notifier, NotifyConfig } from './config.js';
import { deliver, deliveryProblem, type DeliverContext } from './deliver.js';
import { Outbox, type DeliveryStore, type OutboxRow } from './outbox.js';
import { redactPage, type Page, type PageKind } from './page.js';
import { sendTestPage, type TestPageResult } from './test-page.js';
import { releaseTime } from './quiet-hours.js';
import type { PageLinker } from './page-linker.js';

export interface PagerOptions {
  /** First retry delay after a failed send; doubles per failure. Default 5 s. */
  backoffBaseMs?: number;
  /** Retry delay cap. Default 10 min. */
  backoffMaxMs?: number;
  /** Per HTTP request. Default 10 s. */
  httpTimeoutMs?: number;
  /** Per command notifier run. Default 30 s. */
  commandTimeoutMs?: number;
  /** Where env: credentials are read. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Rows sent per tick at most; the rest wait for the next tick. Default 100. */
  maxPerTick?: number;
  /** Told about every send, for the daemon's log. */
  onResult?: (r: DeliveryResult) => void;
  /** Where pages are sent from (default: this file's outbox). A fleet host sends from the shared one. */
  store?: DeliveryStore;
  /** Adds the web links to each page as it is sent. */
  linker?: PageLinker;
  /** Links could not be made: the page goes out without them, and this is told why. */
  onLinkProblem?: (e: unknown, row: OutboxRow) => void;
}

export interface DeliveryResult {
  row: number;
  key: string;
  job: string;
  notifier: string;
  round: number;
  ok: boolean;
  error: string | null;
  /** When the next try is due, after a failure. */
  retry_at: number | null;
}

export interface TickResult {
  delivered: number;
  failed: number;
  held: number;
  repaged: number;
}

export type { OutboxRow } from './outbox.js';

/** How long one send may take: an HTTP request, a command notifier's run. */
export const SEND_TIMEOUTS = { httpTimeoutMs: 10_000, commandTimeoutMs: 30_000 } as const;

type Optional = 'onResult' | 'linker' | 'onLinkProblem' | 'store';

export class Pager {
  /** Where this host's pages are queued, acked and resolved: always its own file. */
  readonly outbox: Outbox;
  /** Where they are sent from. */
  private readonly store: DeliveryStore;
  private readonly opts: Required<Omit<PagerOptions, Optional>> & Pick<PagerOptions, Optional>;
  private config!: NotifyConfig;
  private notifiers = new Map<string, Notifier>();

  constructor(
    db: Sqlite.Database,
    config: NotifyConfig,
    private readonly clock: Clock,
    options: PagerOptions = {},
  ) {
    this.outbox = new Outbox(db);
    this.store = options.store ?? this.outbox;
    this.opts = {
      backoffBaseMs: options.backoffBaseMs ?? 5_000,
      backoffMaxMs: options.backoffMaxMs ?? 600_000,
      httpTimeoutMs: options.httpTimeoutMs ?? SEND_TIMEOUTS.httpTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? SEND_TIMEOUTS.commandTimeoutMs,
      env: options.env ?? process.env,
      maxPerTick: options.maxPerTick ?? 100,
      onResult: options.onResult,
      linker: options.linker,
      onLinkProblem: options.onLinkProblem,
      store: options.store,
    };
    this.reconfigure(config);
  }

  /** Swaps in a reloaded config; queued rows keep their notifier by name. */
  reconfigure(config: NotifyConfig): void {
    this.config = config;
    this.notifiers = new Map(config.notifiers.map((n) => [n.name, n]));
  }

  /** The config in force (status names its notifiers). */
  get notifyConfig(): NotifyConfig {
    return this.config;
  }

  /** The notifiers a page of `kind` goes to, by name: none when `pages: send` leaves the kind out. */
  notifiersFor(kind: PageKind): string[] {
    return this.config.pageKinds.includes(kind) ? [...this.notifiers.keys()] : [];
  }

  /**
   * Queues a page on every notifier. The page is redacted (by pattern, or
   * with the job's Redactor when given) before it is stored, so the outbox
   * never holds a secret either. A second call for the same episode (key)
   * adds nothing. Returns the rows added.
   */
  page(p: Page, redactText?: (text: string) => string): number {
    // `pages: { send: [...] }` in config.yaml: kinds left out are not paged (still on the board and in `show`).
    if (!this.config.pageKinds.includes(p.kind)) return 0;
    const page = redactPage(p, redactText);
    const now = this.clock.now();
    const names = [...this.notifiers.keys()];
    return this.outbox.add(page, names, now, releaseTime(this.config.quietHours, page, now));
  }

  /** The highest episode number among the job's page keys (`<job>:<n>`); 0 when it has none. */
  lastEpisode(job: string): number {
    let last = 0;
    for (const row of this.outbox.history(job)) {
      const n = Number(row.key.slice(job.length + 1));
      if (row.key.startsWith(`${job}:`) && Number.isInteger(n) && n > last) last = n;
    }
    return last;
  }

  /** A person has seen it: no more pages or re-pages for the job's open episodes. Returns episodes acked. */
  ack(job: string): number {
    return this.outbox.close(job, 'acked', this.clock.now());
  }

  /** The episode ended (answered, unblocked, done): stop paging about it. Returns episodes closed. */
  resolve(job: string): number {
    return this.outbox.close(job, 'resolved', this.clock.now());
  }

  /** Starts due re-page rounds, then sends every due row concurrently. */
  async tick(): Promise<TickResult> {
    const now = this.clock.now();
    const result: TickResult = { delivered: 0, failed: 0, held: 0, repaged: 0 };
    if (this.config.repageAfterMs !== null) result.repaged = await this.store.startRepages(now, this.config.repageAfterMs);
    const sends: Array<Promise<boolean>> = [];
    for (const row of await this.store.due(now, this.opts.maxPerTick, [...this.notifiers.keys()])) {
      const notifier = this.notifiers.get(row.notifier);
      if (!notifier) {
        await this.store.drop(row.id, `notifier "${row.notifier}" is no longer in the config`, now);
        continue;
      }
      const release = releaseTime(this.config.quietHours, row.page, now);
      if (release > now) {
        await this.store.hold(row.id, release);
        result.held++;
        continue;
      }
      if (await this.store.claim(row.id, now, now + this.leaseMs())) sends.push(this.send(row, notifier));
    }
    for (const ok of await Promise.all(sends)) result[ok ? 'delivered' : 'failed']++;
    return result;
  }

  /** Rows waiting to be sent (first tries, retries, re-pages, held pages). */
  pending(): OutboxRow[] {
    return this.outbox.pending();
  }

  /** Every row ever queued for `job`, oldest first. */
  history(job: string): OutboxRow[] {
    return this.outbox.history(job);
  }

  /** The test page through every notifier now, as this pager would send (page --test). */
  test(page: Page): Promise<TestPageResult[]> {
    return sendTestPage(this.config, page, this.deliverContext());
  }

  /** The rows of the page queued last, one per notifier, each with how its delivery went. */
  lastPage(): OutboxRow[] {
    return this.outbox.latest();
  }

  private deliverContext(): DeliverContext {
    return { env: this.opts.env, httpTimeoutMs: this.opts.httpTimeoutMs, commandTimeoutMs: this.opts.commandTimeoutMs };
  }

  private async send(row: OutboxRow, notifier: Notifier): Promise<boolean> {
    try {
      await deliver(notifier, this.linked(row), row.round, this.deliverContext());
      await this.store.delivered(row.id, this.clock.now(), row.page.once === true);
      this.report(row, null, null);
      return true;
    } catch (e) {
      // Bugs surface as failures too: a thrown send must not leave the row in flight.
      const error = deliveryProblem(e);
      const retryAt = this.clock.now() + this.backoffMs(row.attempts + 1);
      await this.store.failed(row.id, error, retryAt);
      this.report(row, error, retryAt);
      return false;
    }
  }

  /** The page with fresh links; a person paged without a link still beats nobody paged. */
  private linked(row: OutboxRow): Page {
    try {
      const links = this.opts.linker?.link(row.page, this.clock.now());
      return links ? { ...row.page, ...links } : row.page;
    } catch (e) {
      this.opts.onLinkProblem?.(e, row);
      return row.page;
    }
  }

  /** 5 s, 10 s, 20 s … capped: quick recovery from a blip, no hammering of a down server. */
  private backoffMs(failures: number): number {
    const { backoffBaseMs: base, backoffMaxMs: max } = this.opts;
    return Math.min(max, base * 2 ** Math.min(failures - 1, 30));
  }

  /** Longer than any send can take, so an expired claim means its sender died. */
  private leaseMs(): number {
    return Math.max(this.opts.httpTimeoutMs, this.opts.commandTimeoutMs) + 60_000;
  }

  private report(row: OutboxRow, error: string | null, retryAt: number | null): void {
    this.opts.onResult?.({
      row: row.id,
      key: row.key,
      job: row.job,
      notifier: row.notifier,
      round: row.round,
      ok: error === null,
      error,
      retry_at: retryAt,
    });
  }
}
