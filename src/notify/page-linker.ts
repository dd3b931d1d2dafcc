/**
 * What the pager asks of whoever can link a page to a web page (the web's
 * pageLinker fits it). Owned here, by its consumer, so notify never
 * imports the web.
 */
import type { Page } from './page.js';

export interface PageLinks {
  url: string;
  decline_url?: string;
}

/** Null when there is nothing to link to. */
export interface PageLinker {
  link(page: Page, now: number): PageLinks | null;
}
