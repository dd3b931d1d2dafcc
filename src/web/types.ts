/**
 * The web front end's people and credentials, as the server (server.ts)
 * and the stores behind it (auth-store.ts) share them. A person is named
 * by their token (`nightshift web token NAME`); what they do over HTTP is
 * recorded as `human:NAME@web`.
 */
import type { Role } from '../api/command.js';
import type { CommandHost } from '../api/host.js';

/** Roles a person can hold over HTTP: `local` is the control socket's alone. */
export type WebRole = Exclude<Role, 'local'>;
export const WEB_ROLES = ['viewer', 'operator'] as const satisfies readonly WebRole[];

/** What the web view's own routes (terminal, recording, one-tap actions) read of the daemon; the rest goes through its commands. */
export type WebHost = Pick<CommandHost, 'board' | 'live' | 'webAuth'> & { readonly log: { error(o: object, m: string): void } };

export interface Person {
  readonly name: string;
  readonly role: WebRole;
}

/** A signed-in browser: the person, and the token its writes must echo (X-CSRF-Token). */
export interface Session extends Person {
  readonly csrf: string;
}

/**
 * What a single-use code is for: signing in (a login URL, a page's link) or
 * one action (ntfy's Decline). `from: 'page'` marks a page's login link: a
 * code that went through a notifier signs in for a shorter time (auth-store.ts).
 */
export type CodePurpose = { kind: 'login'; next: string; from?: 'page' } | { kind: 'action'; job: string; action: 'decline'; episode: string };

/** How a session began, when not from a token: the code it was redeemed from decides how long it may live. */
export interface SessionOrigin {
  readonly from?: CodePurpose;
}

export interface RedeemedCode {
  readonly person: Person;
  readonly purpose: CodePurpose;
}

/** The evidence label of a person's web act. */
export const webActor = (name: string): string => `${name}@web`;

/** What the server asks of the token and code store (auth-store.ts). */
export interface AuthStore {
  verifyToken(token: string, now: number): Promise<Person | null>;
  redeemCode(code: string, now: number): RedeemedCode | null;
  startSession(person: Person, now: number, origin?: SessionOrigin): { id: string; session: Session };
  session(id: string, now: number): Session | null;
  endSession(id: string): void;
  audit(entry: AuditEntry, now: number): void;
}

export interface AuditEntry {
  who: string;
  action: string;
  job?: string;
  ok: boolean;
  ip?: string;
  detail?: string;
}
