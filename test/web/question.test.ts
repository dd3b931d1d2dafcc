/**
 * The question first, on a phone: a real daemon runs real programs that
 * ask (test/fixtures/web-question.mjs: a 120-column permission dialog
 * with a long command and an arrow-key menu no rule names; a bash
 * `[y/N]`), and Debian's Chromium opens their pages. The card shows the
 * command in large text without sideways scrolling, the risk in words,
 * a button per choice (never "don't ask again"), a key pad that sends
 * keys alone (the program echoes the bytes it read), and after an answer
 * the next blocked job, oldest first.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { PromptView } from '../../src/api/results.js';
import { riskInWords } from '../../src/notify/page-words.js';
import { browsers, DESKTOP, pageErrors, PHONE, waitText } from '../helpers/browser.js';
import { token } from '../helpers/web-api.js';
import { webDaemon } from '../helpers/web-session.js';
import { testScopes, type DaemonProc } from '../helpers/daemon.js';

const scope = testScopes();
const browser = browsers();

const FIXTURE = new URL('../fixtures/web-question.mjs', import.meta.url).pathname;
/** Longer than a phone's line: 110 characters of a 120-column dialog. */
const COMMAND = 'rm -rf ./build ./dist ./coverage ./node_modules/.cache && npm run build -- --mode production --sourcemap';
const PERMISSION = ['node', FIXTURE, 'permission', COMMAND];
const YES_NO = ['bash', '-c', 'read -p "Delete the cache? [y/N] " a; echo "got:$a"'];

/** A new browser page at `viewport`, signed in as `name` (its login link), on the job's page. */
async function jobPage(d: DaemonProc, viewport: { width: number; height: number }, name: string, role: string, job: string): Promise<Page> {
  const page = await browser.page(viewport);
  await page.goto((await token(d, name, role)).login_url!);
  await waitText(page, '#who', `Signed in as ${name} (${role})`);
  await page.goto(`${d.web}/jobs/${job}`);
  return page;
}

/** Submitted one after another, so each blocks before the next: the [y/N] first (the oldest), the menu, the dialog last. */
async function threeBlocked(d: DaemonProc): Promise<void> {
  await d.submit('yes-no', YES_NO);
  await d.waitState('yes-no', 'blocked', 'prompt', 20_000);
  await d.submit('menu', ['node', FIXTURE, 'menu']);
  await d.waitState('menu', 'blocked', 'unknown-dialog', 20_000);
  await d.submit('clean-build', PERMISSION);
  await d.waitState('clean-build', 'blocked', 'prompt', 20_000);
}

/** Until the job's screen (show, over the socket) holds `text`: what the program says it read. */
async function screenHas(d: DaemonProc, job: string, text: string): Promise<void> {
  const until = Date.now() + 15_000;
  let screen = '';
  while (Date.now() < until) {
    screen = (await d.show(job)).screen ?? '';
    if (screen.includes(text)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`the screen of ${job} never held ${text}; it shows:\n${screen}`);
}

/** The command in the card: its text, font size, whether it scrolls sideways and whether it fits the viewport. */
async function subjectLook(page: Page) {
  return page.evaluate(() => {
    const e = document.querySelector('#q-what') as HTMLElement;
    const r = e.getBoundingClientRect();
    return { text: e.textContent, px: parseFloat(getComputedStyle(e).fontSize), scrolls: e.scrollWidth > e.clientWidth, right: r.right, page: document.documentElement.scrollWidth };
  });
}

async function expectSubjectReadable(page: Page, width: number): Promise<void> {
  await waitText(page, '#q-what', COMMAND);
  const look = await subjectLook(page);
  expect(look.text).toBe(COMMAND);
  expect(look.px).toBeGreaterThanOrEqual(16);
  expect(look.scrolls, 'the command wraps, it does not scroll sideways').toBe(false);
  expect(look.right).toBeLessThanOrEqual(width);
  expect(look.page).toBeLessThanOrEqual(width);
}

const buttonTexts = (page: Page, sel: string) => page.locator(sel).allTextContents();

describe('the question card on a phone (390×844)', () => {
  it('shows the command, the risk in words and every choice, the key pad sends bare keys, and leads to the next blocked job', async (ctx) => {
    const d = await webDaemon(scope, ctx);
    await threeBlocked(d);
    const page = await jobPage(d, PHONE, 'alice', 'operator', 'clean-build');
    const errors = pageErrors(page);

    await expectSubjectReadable(page, PHONE.width);
    await waitText(page, '#q-ask', 'Do you want to proceed?');
    // The reason in words; the codes stay in its title and the API.
    expect(await page.textContent('#reason')).toBe('waiting at a question');
    expect(await page.getAttribute('#reason', 'title')).toMatch(/^prompt \S+/);
    const { prompt } = (await d.show('clean-build')) as unknown as { prompt: PromptView };
    const words = riskInWords(prompt.class, prompt.risk);
    expect(words).toBeTruthy();
    expect(await page.textContent('#q-risk')).toBe(`Risk: ${words}`);
    const labels = await buttonTexts(page, '#choices button');
    expect([...labels].sort()).toEqual(['1. Yes', '3. No', 'Esc: cancel']);
    for (const box of await page.locator('#choices button').evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().height))) expect(box).toBeGreaterThanOrEqual(44);
    await browser.screenshot(page, 'job-phone-command');

    await page.click('#choices button[data-keys="1"]');
    await page.click('.confirm-box button.confirm');
    await waitText(page, '#act-ok', 'human:alice@web');
    await screenHas(d, 'clean-build', 'read:["1"]');
    // The oldest blocked job comes next: the [y/N], blocked before the menu.
    await page.waitForSelector('#next-job[data-job="yes-no"]');
    await page.click('#next-job');
    await waitText(page, '#q-ask', 'Delete the cache? [y/N]');
    await page.click('#choices button[data-choice="decline"]');
    await page.waitForSelector('#next-job[data-job="menu"]');
    await page.click('#next-job');

    // A dialog no rule names: no buttons from a rule, a key pad instead, each key sent alone.
    await page.waitForSelector('#key-pad button[data-key="ctrl-c"]');
    expect(await page.locator('#key-pad button').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-key')))).toEqual(
      ['enter', 'escape', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'up', 'down', 'left', 'right', 'y', 'n', 'ctrl-c'],
    );
    for (const h of await page.locator('#key-pad button').evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().height))) expect(h).toBeGreaterThanOrEqual(44);
    await browser.screenshot(page, 'job-phone-keypad');
    await page.click('#key-pad button[data-key="2"]');
    await screenHas(d, 'menu', 'read:["2"]');
    await page.click('#key-pad button[data-key="up"]');
    await screenHas(d, 'menu', 'read:["2","\\u001b[A"]');
    // Esc asks first: nothing is sent until the person confirms.
    await page.click('#key-pad button[data-key="escape"]');
    await page.waitForSelector('#key-pad .confirm-box');
    expect((await d.show('menu')).screen).not.toContain('"\\u001b"]');
    await page.click('#key-pad .confirm-box button.confirm');
    await screenHas(d, 'menu', 'read:["2","\\u001b[A","\\u001b"]');
    // The reply box can leave out its Enter: a word typed as keys.
    await page.uncheck('#send-enter');
    await page.fill('#send-text', 'ab');
    await page.click('#send');
    await waitText(page, '#act-ok', 'Sent “ab” without Enter.');
    await screenHas(d, 'menu', 'read:["2","\\u001b[A","\\u001b","ab"]');
    await page.click('#key-pad button[data-key="ctrl-c"]');
    await page.click('#key-pad .confirm-box button.confirm');
    await d.waitState('menu', 'done', undefined, 15_000);
    await waitText(page, '#next', 'Nothing else needs you.');
    expect(await page.getAttribute('#back-to-board', 'href')).toBe('/');
    await waitText(page, '#reason', 'finished (exit code 0)');
    const shown = await d.show('menu');
    expect(shown.screen).toContain('read:["2","\\u001b[A","\\u001b","ab","\\u0003"]');
    expect(errors).toEqual([]);
  }, 150_000);
});

describe('the question card on a desktop (1280×800)', () => {
  it('shows the command large and whole; a viewer gets neither answer buttons that work nor a key pad', async (ctx) => {
    const d = await webDaemon(scope, ctx);
    await d.submit('clean-build', PERMISSION);
    await d.waitState('clean-build', 'blocked', 'prompt', 20_000);

    const page = await jobPage(d, DESKTOP, 'olga', 'operator', 'clean-build');
    const errors = pageErrors(page);
    await expectSubjectReadable(page, DESKTOP.width);
    await page.waitForSelector('#key-pad button[data-key="3"]');
    // The dialog shows 1–3: the key pad offers those digits only.
    expect(await page.locator('#key-pad button[data-key="4"]').count()).toBe(0);
    expect(await buttonTexts(page, '#choices button')).not.toContain(expect.stringMatching(/ask again/i));

    const viewer = await jobPage(d, DESKTOP, 'vera', 'viewer', 'clean-build');
    await expectSubjectReadable(viewer, DESKTOP.width);
    await waitText(viewer, '#viewer-note', 'viewer');
    expect(await viewer.locator('#key-pad').count()).toBe(0);
    expect(await viewer.locator('#choices button:not([disabled])').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 90_000);
});
