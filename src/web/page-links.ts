/**
 * The links a page carries: the job's web page (the board for a digest), signed in by
 * a single-use login code, and for a prompt with a safe "no" a single-use
 * Decline action. Minted when a page is sent, never when it is queued, so
 * a code is valid for an hour from the moment a phone can see it.
 */
import type { Page } from '../notify/page.js';
import type { PageLinker, PageLinks } from '../notify/page-linker.js';
import type { CodePurpose, Person } from '../people/types.js';

/** How long a page's codes stay valid. */
export const PAGE_CODE_TTL_MS = 60 * 60_000;

/** The part of the web's token and code store (auth-store.ts) that pages need. */
export interface CodeMinter {
  mintCode(person: Person, purpose: CodePurpose, ttlMs: number, now: number): string;
}

/**
 * What the daemon holds of the web store (WebAuth in auth-store.ts fits
 * it): minting for pages, the audit log for code actions.
 */
export interface WebCodes extends CodeMinter {
  audit(entry: { who: string; action: string; job?: string; ok: boolean; ip?: string; detail?: string }, now: number): void;
}

export interface LinkSource {
  /** `notify.public_url`, without a trailing slash. */
  readonly baseUrl: string;
  /** Who a page's link signs in as (`notify.page_person`); the store caps the role by that person's token. */
  readonly person: Person;
  readonly codes: CodeMinter;
}

/** The job page's path: the one the server redirects a `?code=` visit to. */
export const jobPath = (name: string): string => `/jobs/${encodeURIComponent(name)}`;

/**
 * `source()` is asked at every send: the web store may come up after the
 * pager, and without it (or without public_url) pages simply go unlinked.
 */
export function pageLinker(source: () => LinkSource | null): PageLinker {
  return {
    link(page, now) {
      const s = source();
      if (!s) return null;
      const next = page.kind === 'digest' ? '/' : jobPath(page.name);
      const login = s.codes.mintCode(s.person, { kind: 'login', next, from: 'page' }, PAGE_CODE_TTL_MS, now);
      const links: PageLinks = { url: `${s.baseUrl}${next}?code=${encodeURIComponent(login)}` };
      if (offersDecline(page)) {
        const purpose: CodePurpose = { kind: 'action', job: page.job, action: 'decline', episode: page.key };
        links.decline_url = `${s.baseUrl}/a/${encodeURIComponent(s.codes.mintCode(s.person, purpose, PAGE_CODE_TTL_MS, now))}`;
      }
      return links;
    },
  };
}

/** Only a prompt whose rule declines safely gets a Decline button; an unknown question has no safe "no". */
export function offersDecline(page: Page): boolean {
  return page.kind === 'prompt' && (page.decline_keys?.length ?? 0) > 0;
}
