/**
 * What the web front end's routes share: the part of the daemon they read,
 * and the port of the people store (src/people/) the server asks. What a
 * person does over HTTP is recorded as `human:NAME@web`.
 */
import type { CommandHost } from '../api/host.js';
import type { AuditEntry } from '../people/audit.js';
import type { Event } from '../util/event.js';
import type { CodePurpose, Person, RedeemedCode, Session, SessionOrigin } from '../people/types.js';

/** What the web view's own routes (terminal, recording, one-tap actions) read of the daemon; the rest goes through its commands. */
export type WebHost = Pick<CommandHost, 'board' | 'live' | 'webAuth'> & { readonly log: { error(o: object, m: string): void } };

/** The evidence label of a person's web act. */
export const webActor = (name: string): string => `${name}@web`;

/** What the server asks of the token and code store (src/people/auth-store.ts). */
export interface AuthStore {
  /** `cachedOnly`: only a token verified lately passes, and no scrypt runs (an address past its failures). */
  verifyToken(token: string, now: number, opts?: { cachedOnly?: boolean }): Promise<Person | null>;
  /** Uses the code only when it is of purpose KIND; another kind's is left as it was. */
  redeemCodeOf(code: string, kind: CodePurpose['kind'], now: number): RedeemedCode | { other: CodePurpose['kind'] } | null;
  startSession(person: Person, now: number, origin?: SessionOrigin): { id: string; session: Session };
  session(id: string, now: number, touch?: boolean): Session | null;
  endSession(id: string): void;
  audit(entry: AuditEntry, now: number): void;
  /** Fired with a person's name when their access ends: revoked, or their token replaced. */
  readonly onAccessEnded: Event<string>;
}
