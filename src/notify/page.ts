/**
 * A page: what a person needs to know, on a phone, to unblock a job. The
 * same record goes to every notifier; only its formatting differs
 * (format.ts). Screen and prompt text come from an agent's terminal, so
 * they are redacted before a page is stored or sent anywhere.
 */

export const PAGE_KINDS = [
  'prompt', 'unknown-prompt', 'hung', 'budget', 'other',
  // A probe escalated (a loop, no progress, a refused claim): the job is blocked and its agent interrupted.
  'probe',
  // A job that ended badly: exit ≠ 0 or a signal, could not start, its --after job failed, or the daemon died under it.
  'failed', 'start-failed', 'dependency-failed', 'interrupted',
  // Its PTY host died (or one of another version holds it): the job is gone or out of reach.
  'lost',
  // The state directory's disk is full: recordings and logs stop growing, the jobs go on.
  'disk',
  // A program parked in a watch mode (vitest --watch): it will never end by itself; paged once, never re-paged.
  'parked',
  // The morning digest (notify.digest_at): the night's summary, about no one job.
  'digest',
] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export interface Page {
  /** Job id + episode: the dedupe key, one page per blocked episode. */
  key: string;
  job: string;
  name: string;
  state: string;
  reason: string;
  kind: PageKind;
  rule: string | null;
  class: string | null;
  prompt: string | null;
  /** A few lines of the screen around the prompt. */
  screen: string[];
  /** What to type to answer, e.g. `nightshift answer NAME 1`. */
  answer_command: string;
  /** Every command that moves the job on, answer_command first (a probe's page: send, continue, cancel). */
  commands?: string[];
  /** The command a permission dialog asks to run, when the rule read it. */
  command?: string;
  /** When the job blocked, ISO. */
  time: string;
  /** Pages even in quiet hours; ntfy priority high. */
  urgent: boolean;
  /** A prompt page whose rule has a safe "no": its decline keys (what a Decline button sends). */
  decline_keys?: string[];
  /**
   * The job's web page, signed in by a single-use code (`notify.public_url`).
   * Added at send time, fresh for each delivery, so the outbox (which `show`
   * lists) never holds a live code.
   */
  url?: string;
  /** POST here to decline (single-use); only with `url` and `decline_keys`. */
  decline_url?: string;
  /** The risk words the prompt hit (rules/risk.yaml), e.g. `deploy`: why nobody answered it automatically. */
  risk?: string[];
  /** A hang: how long nothing moved, ms. */
  quiet_ms?: number;
  /** A job that ended: the last lines it printed, redacted like the screen. */
  last_lines?: string[];
  /** Each way on with what it does (`Yes`, `No`, `Stop`…), in the order of `commands`. */
  ways?: Array<{ label: string; command: string }>;
  /** Sent once, never re-paged (nothing a reminder could change): a job that is over, or parked. */
  once?: boolean;
}

const R = '[redacted]';

/**
 * Secret shapes, most specific first so a key's own pattern wins over the
 * generic `name=value` one. Each replaces only the secret part, keeping
 * enough context (`Bearer`, `password=`) for the reader to see what was there.
 */
const PATTERNS: Array<[RegExp, string]> = [
  // PEM private keys; a block cut off by the screen edge is redacted to the end.
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, R],
  // A private key's body lines whose BEGIN line has scrolled off: 64 base64 chars.
  [/^(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*\d)[A-Za-z0-9+/]{64}$/gm, R],
  // JWTs (header.payload.signature, both JSON parts base64url `{"`).
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g, R],
  // OpenAI / Anthropic style keys (sk-…, sk-proj-…, sk-ant-…), Stripe keys.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, R],
  [/\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g, R],
  // GitHub tokens.
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, R],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, R],
  // Slack tokens and incoming-webhook URLs.
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, R],
  [/https:\/\/hooks\.slack\.com\/[^\s"'<>]+/g, R],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, R],
  // Authorization headers. Basic needs a digit or base64 padding so prose
  // ("Basic authentication failed") survives.
  [/\b(Bearer)[ \t]+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${R}`],
  [/\b(Basic)[ \t]+(?=[A-Za-z]*[0-9+/=])[A-Za-z0-9+/=]{8,}/g, `$1 ${R}`],
  // The MySQL clients' password glued to -p (mysql -uapp -pSECRET): the one short flag that carries a secret.
  [/(\bmysql(?:dump|admin|import|show|check)?\b[^\n]*?[ \t]-p)(?!\[redacted\])(?=\S)[^\s"',;]+/g, `$1${R}`],
  // Passwords in URLs: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, `$1${R}@`],
  // name=value / name: value where the name says secret; never across a line
  // break ("Enter password:" then the next line is not a password) (password=, DB_PASSWORD=, "token": "…", api_key …).
  [
    /\b([A-Za-z0-9_.-]*(?:passw(?:or)?d|passphrase|pwd|token|secret|api[_-]?key|access[_-]?key|auth[_-]?key|credential)s?[A-Za-z0-9_.-]*["']?[ \t]*[:=][ \t]*["']?)(?!\[redacted\])[^\s"',;]+/gi,
    `$1${R}`,
  ],
];

/** `text` with every secret we can recognise replaced by `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const [re, to] of PATTERNS) out = out.replace(re, to);
  return out;
}

/**
 * The page with its terminal-derived text redacted (by pattern, or by the
 * job's own Redactor, src/notify/secrets.ts). Screen lines are redacted as
 * one text so a multi-line PEM block is caught whole.
 */
export function redactPage(p: Page, r: (text: string) => string = redact): Page {
  const lines = (l: readonly string[]) => (l.length ? r(l.join('\n')).split('\n') : []);
  return {
    ...p,
    reason: r(p.reason),
    prompt: p.prompt === null ? null : r(p.prompt),
    screen: lines(p.screen),
    ...(p.last_lines ? { last_lines: lines(p.last_lines) } : {}),
    // The command a dialog asks to run is terminal text too (`curl -H 'Authorization: …'`).
    ...(p.command ? { command: r(p.command) } : {}),
  };
}
