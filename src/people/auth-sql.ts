/** The web store's rows and prepared statements, over the tables of schema.ts (versions 3 and 4). */
import type { Database } from '../board/db.js';
import type { WebRole } from './types.js';

export interface PersonRow {
  name: string;
  role: WebRole;
  token_id: string;
  salt: Buffer;
  hash: Buffer;
  created: number;
  last_used: number | null;
  revoked: number | null;
}

export interface CodeRow {
  person: string;
  role: WebRole;
  purpose: string;
  expires: number;
  used: number | null;
}

export interface SessionRow {
  person: string;
  role: WebRole;
  csrf: string;
  started: number;
  last_seen: number;
  max_until: number;
}

export function statements(db: Database) {
  return {
    upsertPerson: db.prepare(
      `INSERT INTO web_people (name, role, token_id, salt, hash, created) VALUES (@name, @role, @token_id, @salt, @hash, @created)
       ON CONFLICT (name) DO UPDATE SET role = excluded.role, token_id = excluded.token_id, salt = excluded.salt, hash = excluded.hash,
         created = excluded.created, last_used = NULL, revoked = NULL`,
    ),
    // A second revoke keeps the first time: that is when access ended.
    revoke: db.prepare('UPDATE web_people SET revoked = COALESCE(revoked, ?) WHERE name = ?'),
    list: db.prepare('SELECT name, role, created, last_used, revoked FROM web_people ORDER BY name'),
    byTokenId: db.prepare('SELECT * FROM web_people WHERE token_id = ?'),
    personByName: db.prepare('SELECT role, revoked FROM web_people WHERE name = ?'),
    // A revoked row with no token: its token_id matches no token (they are 16 hex digits), its empty hash no secret.
    insertRevoked: db.prepare(
      `INSERT INTO web_people (name, role, token_id, salt, hash, created, revoked) VALUES (@name, 'viewer', @token_id, x'', x'', @created, @revoked)`,
    ),
    touchPerson: db.prepare('UPDATE web_people SET last_used = ? WHERE name = ?'),
    insertCode: db.prepare('INSERT INTO web_codes (hash, person, role, purpose, expires) VALUES (@hash, @person, @role, @purpose, @expires)'),
    codeByHash: db.prepare('SELECT person, role, purpose, expires, used FROM web_codes WHERE hash = ?'),
    useCode: db.prepare('UPDATE web_codes SET used = ? WHERE hash = ? AND used IS NULL'),
    pruneCodes: db.prepare('DELETE FROM web_codes WHERE expires <= ?'),
    endCodes: db.prepare('DELETE FROM web_codes WHERE person = ? AND used IS NULL'),
    insertSession: db.prepare(
      'INSERT INTO web_sessions (hash, person, role, csrf, started, last_seen, max_until) VALUES (@hash, @person, @role, @csrf, @started, @started, @max_until)',
    ),
    sessionByHash: db.prepare('SELECT person, role, csrf, started, last_seen, max_until FROM web_sessions WHERE hash = ?'),
    touchSession: db.prepare('UPDATE web_sessions SET last_seen = ? WHERE hash = ?'),
    pruneSessions: db.prepare('DELETE FROM web_sessions WHERE last_seen <= ? OR max_until <= ?'),
    endSessions: db.prepare('DELETE FROM web_sessions WHERE person = ?'),
    deleteSession: db.prepare('DELETE FROM web_sessions WHERE hash = ?'),
  };
}
