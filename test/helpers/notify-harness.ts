/**
 * Shared by the pager tests (not used by the daemon): a real HTTP receiver
 * on 127.0.0.1 (page-server.ts), temp SQLite files, and a Pager on a ManualClock. Kept free
 * of vitest so it type-checks with the sources.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../../src/core/clock.js';
import { parseNotifyConfig } from '../../src/notify/config.js';
import type { Page } from '../../src/notify/page.js';
import { Pager, type PagerOptions } from '../../src/notify/pager.js';
import { PageServer as Receiver } from './page-server.js';

export const SEC = 1_000;
export const MIN = 60 * SEC;
/** Noon, local time, so quiet-hours tests do not depend on TZ. */
export const NOON = new Date(2025, 0, 15, 12, 0).getTime();

export { Receiver };
export type { Hit } from './page-server.js';

export type SetupOptions = PagerOptions & { start?: number; db?: Database.Database };

/** Owns a temp folder and everything a test opened, for one afterEach/afterAll. */
export class Harness {
  readonly dir: string;
  private n = 0;
  private readonly receivers: Receiver[] = [];
  private readonly dbs: Database.Database[] = [];

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'nightshift-notify-'));
  }

  fresh(name: string): string {
    return join(this.dir, `${++this.n}-${name}`);
  }

  async receiver(port = 0): Promise<Receiver> {
    const r = await new Receiver().start(port);
    this.receivers.push(r);
    return r;
  }

  openDb(path = this.fresh('board.sqlite')): Database.Database {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    this.dbs.push(db);
    return db;
  }

  /** A Pager on a ManualClock at `start` (default NOON), 5 s back-off base, an empty env. */
  setup(yaml: string, opts: SetupOptions = {}) {
    const clock = new ManualClock(opts.start ?? NOON);
    const db = opts.db ?? this.openDb();
    const config = parseNotifyConfig(yaml, join(this.dir, 'config.yaml'));
    const pager = new Pager(db, config, clock, { backoffBaseMs: 5 * SEC, backoffMaxMs: 10 * MIN, env: {}, ...opts });
    const advance = (ms: number) => clock.set(clock.now() + ms);
    return { clock, db, pager, advance };
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.receivers.splice(0).map((r) => r.stop()));
    for (const db of this.dbs.splice(0)) if (db.open) db.close();
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Config text with one webhook to `r`; `extra` is appended inside its flow map. */
export function webhookYaml(r: Receiver, extra = ''): string {
  return `notify:\n  notifiers:\n    - { kind: webhook, url: "${r.url()}"${extra} }\n`;
}

export function samplePage(over: Partial<Page> = {}): Page {
  return {
    key: 'j1:1',
    job: 'j1',
    name: 'build-api',
    state: 'blocked',
    reason: 'permission prompt',
    kind: 'prompt',
    rule: 'claude-permission',
    class: 'permission',
    prompt: 'Do you want to run npm install left-pad?',
    screen: ['> npm install left-pad', '1. Yes  2. No'],
    answer_command: 'nightshift answer build-api 1',
    time: new Date(NOON).toISOString(),
    urgent: false,
    ...over,
  };
}
