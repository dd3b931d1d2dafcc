/**
 * People and their credentials, as the store (auth-store.ts), the daemon's
 * commands and the web view share them. A person is named by their token
 * (`nightshift web token NAME`).
 */

/** Roles a person can hold over HTTP, lowest first: `local` is the control socket's alone (src/api/command.ts). */
export const WEB_ROLES = ['viewer', 'operator'] as const;
export type WebRole = (typeof WEB_ROLES)[number];

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
