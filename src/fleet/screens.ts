/**
 * Each live job's visible screen, stored by its owning daemon (at most every
 * 2 s while it changes, fleet/link.ts) so `show` and the web view on any
 * host can show it, even once that host is gone.
 */
import type { FleetDb } from './db.js';

export async function storeScreens(db: FleetDb, host: string, screens: Array<{ job: string; screen: string }>): Promise<void> {
  await db.query(
    `INSERT INTO fleet_screens (job, host, screen, updated)
     SELECT s.job, $1, s.screen, now() FROM jsonb_to_recordset($2::jsonb) AS s(job text, screen text)
     ON CONFLICT (job) DO UPDATE SET host = EXCLUDED.host, screen = EXCLUDED.screen, updated = EXCLUDED.updated`,
    [host, JSON.stringify(screens)],
  );
}

export async function readScreen(db: FleetDb, job: string): Promise<{ screen: string; updated: string; host: string } | null> {
  const rows = await db.query<{ screen: string; updated: Date; host: string }>('SELECT screen, updated, host FROM fleet_screens WHERE job = $1', [job]);
  const r = rows[0];
  return r ? { screen: r.screen, updated: r.updated.toISOString(), host: r.host } : null;
}
