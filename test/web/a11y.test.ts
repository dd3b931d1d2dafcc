/**
 * The job page and the board with a keyboard, a screen reader's eyes and a
 * thumb, on a phone and a laptop, in a real browser against a real daemon
 * with a job blocked at a [y/N] question: Tab passes the terminal (Enter
 * enters it, Escape leaves), text meets AA contrast in the light and the
 * dark theme (computed from the page's own styles), the question is said
 * by a polite live region and nothing is assertive, Escape closes the
 * confirm box, and targets are at least 24 px (answers 44 px).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browsers, DESKTOP, pageErrors, PHONE } from '../helpers/browser.js';
import { testScopes, type DaemonProc } from '../helpers/daemon.js';
import { waitText, webDaemon } from '../helpers/web-session.js';
import { token } from '../helpers/web-api.js';

const scope = testScopes();
const browser = browsers();
const JOB = 'clean-cache';
const QUESTION = 'Delete the cache? [y/N]';
const ASK = ['bash', '-c', `echo "cleaning the build cache"; read -p "${QUESTION} " a; echo "got:$a"`];

async function openJob(d: DaemonProc, viewport: { width: number; height: number }): Promise<Page> {
  const alice = await token(d, 'alice');
  const page = await browser.page(viewport);
  await page.goto(alice.login_url!);
  await waitText(page, '#who', 'Signed in as alice');
  await page.goto(`${d.web}/jobs/${JOB}`);
  await waitText(page, '#prompt-text', QUESTION);
  await waitText(page, '#term-status', 'live');
  return page;
}

/** Where the focus is: its id, or the id of the nearest ancestor that has one. */
const focusAt = (page: Page) => page.evaluate(() => document.activeElement?.closest('[id]')?.id ?? '');

/**
 * Every visible element with its own text whose contrast with the colour
 * behind it is under AA: 4.5:1, or 3:1 for large text. The terminal (the
 * program's own colours) and disabled controls are left out, as WCAG does.
 */
function lowContrast(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgb = (c: string): number[] => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const behind = (e: Element | null): number[] => {
      for (; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3]! > 0.5)) return c.slice(0, 3);
      }
      return rgb(getComputedStyle(document.body).backgroundColor).slice(0, 3);
    };
    const bad: string[] = [];
    for (const e of Array.from(document.querySelectorAll('body *'))) {
      if (e.closest('#terminal, .sr-only, :disabled, script, style') || !(e instanceof HTMLElement)) continue;
      const own = Array.from(e.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== '');
      if (!own || e.offsetParent === null && getComputedStyle(e).position !== 'fixed') continue;
      const s = getComputedStyle(e);
      const [l1, l2] = [lum(rgb(s.color)), lum(behind(e))];
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      const px = parseFloat(s.fontSize);
      const large = px >= 24 || (px >= 18.66 && Number(s.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) bad.push(`${e.tagName.toLowerCase()}.${e.className} "${e.textContent!.trim().slice(0, 30)}" ${ratio.toFixed(2)}:1`);
    }
    return bad;
  });
}

/** Visible targets under 24 px on a side, and answer buttons under 44 px tall. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bad: string[] = [];
    for (const e of Array.from(document.querySelectorAll('a[href], button, input, summary, [tabindex="0"]'))) {
      if (e.closest('#terminal, .sr-only')) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const min = e.matches('[data-choice]') ? 44 : 24;
      if (r.height < min || r.width < 24) bad.push(`${e.tagName.toLowerCase()}#${e.id} "${(e.textContent ?? '').trim().slice(0, 20)}" ${r.width.toFixed(0)}×${r.height.toFixed(0)} (< ${min})`);
    }
    return bad;
  });
}

describe('the job page, accessible', () => {
  for (const [label, viewport] of [['phone', PHONE], ['laptop', DESKTOP]] as const) {
    it(`has no keyboard trap, AA contrast in both themes, a polite question, Escape for the confirm box and big enough targets (${label})`, async (ctx) => {
      const d = await webDaemon(scope, ctx);
      await d.submit(JOB, ASK);
      await d.waitState(JOB, 'blocked', 'prompt', 20_000);
      const page = await openJob(d, viewport);
      const errors = pageErrors(page);

      // Each check runs even when one before it failed, so a run names every one that fails.
      const failed: string[] = [];
      const check = async (name: string, fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (e) {
          failed.push(`${name}: ${(e as Error).message.split('\n')[0]}`);
          await page.keyboard.press('Escape').catch(() => undefined);
        }
      };
      await check('no keyboard trap', async () => {
        // Tab from the top reaches the reply box and Cancel: the terminal is one stop, passed.
        await page.focus('#back');
        const seen: string[] = [];
        for (let i = 0; i < 30; i++) {
          await page.keyboard.press('Tab');
          seen.push(await focusAt(page));
        }
        expect(seen).toContain('term-wrap');
        expect(seen).toContain('send-text');
        expect(seen).toContain('cancel');
        expect(seen.filter((id) => id === 'terminal'), 'xterm itself is no Tab stop').toEqual([]);
      });
      await check('a key to enter and leave the terminal', async () => {
        await page.focus('#term-wrap', { timeout: 2_000 });
        await page.keyboard.press('Enter');
        expect(await focusAt(page)).toBe('terminal');
        await page.keyboard.press('Escape');
        expect(await focusAt(page)).toBe('term-wrap');
        await page.keyboard.press('Enter');
        await page.keyboard.press('Tab');
        expect(await focusAt(page), 'Tab leaves the terminal too').not.toBe('terminal');
        await waitText(page, '#term-keys', 'Esc', 2_000);
      });
      await check('a polite live region for the question only', async () => {
        await waitText(page, '#q-live', QUESTION, 4_000);
        expect(await page.getAttribute('#q-live', 'aria-live')).toBe('polite');
        expect(await page.locator('[aria-live="assertive"]').count()).toBe(0);
        expect(await page.evaluate(() => document.querySelector('#term-status')!.closest('[aria-live]:not([aria-live="off"])'))).toBeNull();
        // The plain-text screen is there on demand, and never announced.
        await waitText(page, '#term-text', QUESTION, 4_000);
        expect(await page.getAttribute('#term-text', 'aria-live')).toBe('off');
      });
      await check('Escape closes the confirm box', async () => {
        await page.click('button[data-choice="answer"]');
        await page.waitForSelector('.confirm-box');
        await page.keyboard.press('Escape');
        expect(await page.locator('.confirm-box').count()).toBe(0);
        expect(await page.evaluate(() => document.activeElement?.getAttribute('data-choice')), 'the focus goes back').toBe('answer');
      });
      await check('targets', async () => expect(await smallTargets(page)).toEqual([]));
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await check(`contrast, job page, ${colorScheme}`, async () => expect(await lowContrast(page)).toEqual([]));
        await page.goto(`${d.web}/`);
        await page.waitForSelector(`li[data-job="${JOB}"][data-state="blocked"]`);
        await check(`contrast, board, ${colorScheme}`, async () => expect(await lowContrast(page)).toEqual([]));
        await check(`targets, board, ${colorScheme}`, async () => expect(await smallTargets(page)).toEqual([]));
        await page.goto(`${d.web}/jobs/${JOB}`);
        await waitText(page, '#prompt-text', QUESTION);
      }
      expect(failed).toEqual([]);
      expect(errors).toEqual([]);
    }, 120_000);
  }
});
