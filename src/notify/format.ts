/**
 * How a page looks to each kind of receiver. Pure: credentials are added by
 * deliver.ts at send time, and the page is already redacted.
 */
import { summarize, type Page } from './page.js';

export interface HttpMessage {
  body: string;
  headers: Record<string, string>;
}

/** Round 1 is the first page; later rounds are reminders of the same episode. */
function titleOf(p: Page, round: number): string {
  const what = `nightshift: ${p.name} ${p.state} (${p.kind})`;
  return round > 1 ? `Reminder ${round - 1}: ${what}` : what;
}

/** What to show: the last screen lines, and the prompt when the screen does not already hold it. */
function detail(p: Page): string {
  const screen = p.screen.join('\n');
  if (p.prompt && !screen.includes(p.prompt)) return screen ? `${screen}\n${p.prompt}` : p.prompt;
  return screen;
}

const answers = (p: Page) => (p.commands ?? [p.answer_command]).map((c) => `Answer: ${c}`).join('\n');

/** Generic webhook: the Page itself, for scripts that route it on. */
export function webhookMessage(p: Page, round: number): HttpMessage {
  return {
    body: JSON.stringify(p),
    headers: { 'content-type': 'application/json', 'x-nightshift-round': String(round) },
  };
}

/**
 * ntfy publishing: the body is the notification text, metadata goes in
 * headers. Header values must be Latin-1, so non-ASCII titles go RFC 2047
 * encoded, which ntfy decodes.
 */
export function ntfyMessage(p: Page, round: number): HttpMessage {
  const parts = [summarize(p), detail(p), answers(p)].filter((s) => s.trim() !== '');
  const actions = ntfyActions(p);
  return {
    body: parts.join('\n\n'),
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      Title: headerText(titleOf(p, round)),
      Priority: p.urgent ? 'high' : 'default',
      Tags: [p.urgent ? 'rotating_light' : 'warning', 'nightshift', p.kind].join(','),
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

/** Slack incoming webhook: mrkdwn `text` (renders everywhere, including notifications). */
export function slackMessage(p: Page, round: number): HttpMessage {
  const lines = [`*${esc(titleOf(p, round))}*`, esc(summarize(p))];
  const d = detail(p);
  if (d.trim()) lines.push('```' + esc(d.replace(/```/g, "'''")) + '```');
  for (const c of p.commands ?? [p.answer_command]) lines.push(`Answer: \`${esc(c)}\``);
  // Slack's link syntax; `|` and `>` cannot occur in our URL (the job name is percent-encoded).
  if (p.url) lines.push(`<${p.url}|Open the job>`);
  return {
    // An unfurl would fetch the link and spend its single-use code before the person taps it.
    body: JSON.stringify({ text: lines.join('\n'), ...(p.url ? { unfurl_links: false, unfurl_media: false } : {}) }),
    headers: { 'content-type': 'application/json' },
  };
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
