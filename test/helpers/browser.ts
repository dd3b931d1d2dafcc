/**
 * Headless Chromium for the web view's tests: Debian's `chromium` package
 * (.ci/run installs it; browser downloads are not available here), driven
 * by playwright-core. One browser per test file, one fresh context (its own
 * cookies) per page; everything is closed after each test and the browser
 * after the file, whatever happened.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const CHROMIUM = process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium';
export const PHONE = { width: 390, height: 844 } as const;
export const DESKTOP = { width: 1280, height: 800 } as const;
/**
 * Where the tests save their screenshots: .tmp/screenshots (ignored), so a
 * run leaves the tree clean. The README's own are refreshed with
 * NIGHTSHIFT_SCREENSHOTS=docs/screenshots.
 */
export const SCREENSHOTS = resolve(process.env.NIGHTSHIFT_SCREENSHOTS ?? join(import.meta.dirname, '..', '..', '.tmp', 'screenshots'));

export interface Browsers {
  /** A new page in a new context (no cookies) at `viewport`, with a phone's touch and scale when it is PHONE. */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  /** Saves a screenshot of the page as SCREENSHOTS/NAME.png. */
  screenshot(page: Page, name: string): Promise<void>;
}

/** For a test file: launches Chromium before its tests, closes contexts after each and the browser after all. */
export function browsers(): Browsers {
  let browser: Browser | null = null;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    // Root in a container: Chromium's sandbox needs user namespaces it does not get.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
  }, 30_000);
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    browser = null;
  });
  return {
    async page(viewport = PHONE) {
      if (!browser) throw new Error('the browser did not start');
      const phone = viewport.width === PHONE.width;
      const context = await browser.newContext({ viewport, ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
      contexts.push(context);
      return context.newPage();
    },
    async screenshot(page, name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
    },
  };
}

/** What went wrong in the page (console errors, uncaught exceptions, a CSP refusal): a broken script fails the test with its message. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // A 401 is how a page learns nobody is signed in (GET /api/v1/me); Chromium logs it as a failed load.
    if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/** Waits until `selector`'s text contains `text` (the page updates itself: polls and the WebSocket). */
export async function waitText(page: Page, selector: string, text: string, ms = 10_000): Promise<void> {
  try {
    await page.waitForFunction(([s, t]) => document.querySelector(s!)?.textContent?.includes(t!) ?? false, [selector, text], { timeout: ms, polling: 100 });
  } catch (e) {
    const got = await page.evaluate((s) => document.querySelector(s)?.textContent ?? '(no element)', selector).catch(() => '(the page did not answer)');
    throw new Error(`${selector} never said ${JSON.stringify(text)} within ${ms} ms; it says: ${got.slice(0, 600)}`, { cause: e });
  }
}
