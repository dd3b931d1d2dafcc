/**
 * How a page looks to each kind of receiver. Pure: credentials are added by
 * deliver.ts at send time, and the page is already redacted.
 */
import type { Page } from './page.js';
import { askedInWords, questionOf, riskInWords, waysText, type Way } from './page-words.js';

export interface HttpMessage {
  body: string;
  headers: Record<string, string>;
}

/** Round 1 is the first page; later rounds are reminders of the same episode. The title is what is asked, in words. */
function titleOf(p: Page, round: number): string {
  const what = askedInWords(p);
  return round > 1 ? `Reminder ${round - 1}: ${what}` : what;
}

/** What to show: the last screen lines, and the prompt when the screen does not already hold it. */
function detail(p: Page): string {
  const screen = p.screen.join('\n');
  if (p.prompt && !screen.includes(p.prompt)) return screen ? `${screen}\n${p.prompt}` : p.prompt;
  return screen;
}

/** Every way on, labelled; a page made before ways were named offers its commands as they are. */
export const waysOf = (p: Page): Way[] => p.ways ?? (p.commands ?? [p.answer_command]).map((command) => ({ label: 'Run', command }));

/** The last lines a job printed, under a heading. */
const lastLines = (p: Page): string => (p.last_lines?.length ? `Last lines:\n${p.last_lines.join('\n')}` : '');

/**
 * Generic webhook: the Page, plus the fields a script routes on, whose
 * names and meaning stay (docs/paging.md): title, question, risk, commands,
 * ways, link, last_lines.
 */
export function webhookMessage(p: Page, round: number): HttpMessage {
  const ways = waysOf(p);
  const body = {
    ...p,
    version: 1,
    round,
    title: askedInWords(p),
    question: questionOf(p.prompt),
    risk: riskInWords(p.class, p.risk),
    risk_hits: p.risk ?? [],
    commands: ways.map((w) => w.command),
    ways,
    link: p.url ?? null,
    last_lines: p.last_lines ?? [],
  };
  return {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-nightshift-round': String(round) },
  };
}

/**
 * ntfy publishing: the body is the notification text, metadata goes in
 * headers. Header values must be Latin-1, so non-ASCII titles go RFC 2047
 * encoded, which ntfy decodes.
 */
export function ntfyMessage(p: Page, round: number): HttpMessage {
  const parts = [contextLine(p), detail(p), lastLines(p), waysText(waysOf(p)).join('\n')].filter((s) => s.trim() !== '');
  const actions = ntfyActions(p);
  return {
    body: parts.join('\n\n'),
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      Title: headerText(titleOf(p, round)),
      Priority: p.urgent ? 'high' : 'default',
      Tags: [p.urgent ? 'rotating_light' : 'warning', 'nightshift', p.kind, ...(p.class ? [p.class] : [])].join(','),
      ...(p.url ? { Click: p.url } : {}),
      ...(actions ? { Actions: actions } : {}),
    },
  };
}

/**
 * ntfy's short action format: `ACTION, LABEL, URL[, key=value…]`, actions
 * joined by `;`. The app itself sends the Decline POST (ntfy's server
 * never sees it), and clears the notification since its code is spent.
 */
function ntfyActions(p: Page): string | null {
  if (!p.url) return null;
  const list = [`view, Open, ${actionValue(p.url)}`];
  if (p.decline_url) list.push(`http, Decline, ${actionValue(p.decline_url)}, method=POST, clear=true`);
  return list.join('; ');
}

/** A value holding `,` or `;` must be quoted; ours are URLs, which never hold `"`. */
const actionValue = (v: string) => (/[,;]/.test(v) ? `"${v}"` : v);

/**
 * Slack incoming webhook: Block Kit blocks (the headline, its facts, what
 * is asked, the last lines, each way on, a button to the job) and the same
 * as mrkdwn `text`, which notifications and old clients show.
 */
export function slackMessage(p: Page, round: number): HttpMessage {
  const code = (s: string) => '```' + esc(s.replace(/```/g, "'''")) + '```';
  const parts = [`*${esc(titleOf(p, round))}*`, esc(contextLine(p))];
  const d = detail(p);
  if (d.trim()) parts.push(code(d));
  if (p.last_lines?.length) parts.push(`Last lines:\n${code(p.last_lines.join('\n'))}`);
  parts.push(waysOf(p).map((w) => `${esc(w.label)}: \`${esc(w.command)}\``).join('\n'));
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const blocks: object[] = [section(parts[0]!), { type: 'context', elements: [{ type: 'mrkdwn', text: parts[1]! }] }, ...parts.slice(2).map(section)];
  // A link button only: an answer goes through the web page, where the person sees the screen first.
  if (p.url) blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the job' }, url: p.url }] });
  // Slack's link syntax; `|` and `>` cannot occur in our URL (the job name is percent-encoded).
  const text = [...parts, ...(p.url ? [`<${p.url}|Open the job>`] : [])].join('\n');
  return {
    // An unfurl would fetch the link and spend its single-use code before the person taps it.
    body: JSON.stringify({ text, blocks, ...(p.url ? { unfurl_links: false, unfurl_media: false } : {}) }),
    headers: { 'content-type': 'application/json' },
  };
}

/** `blocked · prompt · rule generic-yes-no · destructive`: the facts under the headline. */
function contextLine(p: Page): string {
  return [p.state, p.reason, p.rule ? `rule ${p.rule}` : null, p.class].filter(Boolean).join(' · ');
}

/** Slack's three control characters in mrkdwn. */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function headerText(s: string): string {
  const oneLine = s.replace(/[\r\n]+/g, ' ');
  // eslint-disable-next-line no-control-regex
  if (/^[\x20-\x7e]*$/.test(oneLine)) return oneLine;
  return `=?UTF-8?B?${Buffer.from(oneLine, 'utf8').toString('base64')}?=`;
}
