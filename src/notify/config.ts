/**
 * The daemon's paging config: `<stateDir>/config.yaml`, sections `notify:`
 * (notifiers, re-pages, quiet hours) and `pages:` (which kinds of page are
 * sent). The whole file is checked strictly: a misspelt key anywhere
 * (`notifyy:`) would otherwise leave the daemon paging nobody, so it is
 * refused with file:line before the daemon starts.
 */
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { lineAt, parseYaml, validate } from '../rules/yaml-source.js';
import { parseDuration } from '../util/duration.js';
import { DEFAULT_MAX_BLOCKED_MS } from '../core/blocked-ceiling.js';
import { InputError } from '../util/errors.js';
import { PAGE_KINDS, redact, type PageKind } from './page.js';
import { isRef, parseRef, refProblem, type ValueRef } from './secret-ref.js';

export const DEFAULT_REPAGE_MS = 30 * 60_000;

export interface QuietHours {
  /** Minutes after local midnight; start > end means the window spans midnight. */
  start: number;
  end: number;
  /** Kinds that page even inside the window (as does any page marked urgent). */
  urgent: PageKind[];
}

interface NotifierBase {
  /** Identifies the notifier in the outbox; stable across restarts and reorders. */
  name: string;
}
export interface WebhookNotifier extends NotifierBase {
  kind: 'webhook';
  url: ValueRef;
  headers: Record<string, ValueRef>;
}
export interface NtfyNotifier extends NotifierBase {
  kind: 'ntfy';
  url: ValueRef;
  token: ValueRef | null;
}
export interface SlackNotifier extends NotifierBase {
  kind: 'slack';
  url: ValueRef;
}
export interface CommandNotifier extends NotifierBase {
  kind: 'command';
  argv: string[];
}
export type Notifier = WebhookNotifier | NtfyNotifier | SlackNotifier | CommandNotifier;

/** What a page can be about (page.ts); `pages: { send: [...] }` picks which are sent. */
export const PAGE_SEND_KINDS = PAGE_KINDS;
export type PageSendKind = (typeof PAGE_SEND_KINDS)[number];

export interface NotifyConfig {
  /** Re-page an unacknowledged episode this long after its last delivery; null = never. */
  repageAfterMs: number | null;
  quietHours: QuietHours | null;
  notifiers: Notifier[];
  /** The kinds of page sent (`pages.send`); default every kind. */
  pageKinds: PageSendKind[];
  /** `notify.public_url` and `notify.page_person`: where page links point and who they sign in as; null = pages carry no link. */
  links: PageLinkConfig | null;
  /** `notify.digest_at`: the morning digest's time, minutes after local midnight (the daemon's TZ); null = no digest page. */
  digestAt: number | null;
  /** `jobs.max_blocked`: the ceiling on waiting for a job submitted without `--max-blocked`; null = off. */
  maxBlockedMs: number | null;
  /** `web:`: what the web view trusts and shows. */
  web: WebConfig;
}

export interface WebConfig {
  /** `web.trusted_proxies`: the addresses (or CIDR ranges) whose X-Forwarded-* headers are believed; none by default. */
  trustedProxies: string[];
  /** `web.show_env`: env values shown in clear on the web; by default every value is masked there. */
  showEnv: boolean;
}

export interface PageLinkConfig {
  /** Where a person's browser reaches the web view, without a trailing slash (`https://host/nightshift`). */
  publicUrl: string;
  /** The person a page's link signs in as (role operator); their answers are recorded as `human:NAME@web`. */
  pagePerson: string;
}

export const DEFAULT_PAGE_PERSON = 'on-call';

export function emptyNotifyConfig(): NotifyConfig {
  return { repageAfterMs: DEFAULT_REPAGE_MS, quietHours: null, notifiers: [], pageKinds: [...PAGE_SEND_KINDS], links: null, digestAt: null, maxBlockedMs: DEFAULT_MAX_BLOCKED_MS, web: { trustedProxies: [], showEnv: false } };
}

const REF_HINT = 'write env:NAME or file:PATH and keep the secret there';
/** Header names whose values are credentials whatever they look like. */
const SECRET_HEADER = /auth|token|key|secret|pass|cookie|signature|credential|session/i;

const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  if (v === 'off') return null;
  try {
    const ms = parseDuration(v, 'duration');
    if (ms > 0) return ms;
    ctx.addIssue({ code: 'custom', message: 'expected a duration above zero, or off' });
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
  return z.NEVER;
});

const clockTime = z
  .string()
  .refine((s) => /^([01]?\d|2[0-3]):[0-5]\d$/.test(s), { error: (iss) => `"${String(iss.input)}" is not a local time of day; expected one like "22:00"` })
  .transform((s) => {
    const [h, m] = s.split(':');
    return Number(h) * 60 + Number(m);
  });

/** A value given literally or by reference; `refs: 'required'` refuses literals (secrets). */
function value(refs: 'allowed' | 'required', what: string) {
  return z.string().min(1).superRefine((v, ctx) => {
    const problem = refProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
    else if (refs === 'required' && !isRef(v)) ctx.addIssue({ code: 'custom', message: `${what} is a secret: ${REF_HINT}` });
  });
}

/** A webhook/ntfy URL may be literal unless it carries a credential (user:pass@, ?token=…). */
const url = value('allowed', 'url').superRefine((v, ctx) => {
  if (isRef(v)) return;
  if (!/^https?:\/\/[^/\s]+/i.test(v)) ctx.addIssue({ code: 'custom', message: `"${v}" is not an http(s) URL` });
  else if (redact(v) !== v) ctx.addIssue({ code: 'custom', message: `the URL holds a credential: ${REF_HINT}` });
});

const headers = z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name'), z.string()).superRefine((h, ctx) => {
  for (const [name, v] of Object.entries(h)) {
    const problem = refProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    else if (!isRef(v) && (SECRET_HEADER.test(name) || redact(v) !== v)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `a literal secret in header ${name} is refused: ${REF_HINT}` });
    }
  }
});

const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected a name of letters, digits, . _ -').optional();

const notifier = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('webhook'), name, url, headers: headers.default({}) }).strict(),
    z.object({ kind: z.literal('ntfy'), name, url, token: value('required', 'token').optional() }).strict(),
    z.object({ kind: z.literal('slack'), name, url: value('required', 'a Slack webhook URL') }).strict(),
    z
      .object({
        kind: z.literal('command'),
        name,
        argv: z.array(
          z.string().min(1).refine((a) => redact(a) === a, `a literal secret in argv is refused; let the command read it from its environment`),
        ).min(1, 'expected the command and its arguments'),
      })
      .strict(),
  ],
  { error: (iss) => (iss.code === 'invalid_union' ? 'expected kind to be one of webhook, ntfy, slack, command' : undefined) },
);

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The web view's address as a phone reaches it. Links carry login codes,
 * so plain http is refused unless it stays on this machine; a query or
 * fragment would be mangled by the `/jobs/NAME?code=` appended to it.
 */
const publicUrl = z.string().transform((v, ctx) => {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a URL; expected e.g. https://nightshift.example.com` });
    return z.NEVER;
  }
  const problem =
    u.protocol !== 'https:' && u.protocol !== 'http:' ? `"${v}" is not an http(s) URL`
    : u.protocol === 'http:' && !LOOPBACK.test(u.hostname) ? `"${v}" is plain http to another machine: page links carry login codes; use https (a reverse proxy, README "Web view")`
    : u.username || u.password ? `"${v}" holds a user or password; page links must not`
    : u.search || u.hash ? `"${v}" has a query or fragment; give the address only`
    : null;
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
});

const notifySection = z
  .object({
    public_url: publicUrl.optional(),
    page_person: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected a person\'s name of letters, digits, . _ - (as `nightshift web token NAME`)').optional(),
    repage_after: duration.optional(),
    digest_at: clockTime.optional(),
    quiet_hours: z
      .object({ start: clockTime, end: clockTime, urgent: z.array(z.enum(PAGE_KINDS)).default([]) })
      .strict()
      .refine((q) => q.start !== q.end, 'quiet hours start and end must differ')
      .optional(),
    notifiers: z.array(notifier).default([]),
  })
  .strict();

const pagesSection = z
  .object({
    send: z.array(
      z.enum(PAGE_SEND_KINDS, { error: (iss) => `"${String(iss.input)}" is not a page kind; expected one of ${PAGE_SEND_KINDS.join(', ')}` }),
    ),
  })
  .partial()
  .strict();

/** What the daemon does with jobs submitted without their own setting. */
const jobsSection = z.object({ max_blocked: duration }).partial().strict();

/** An IPv4 or IPv6 address, or a CIDR range of them: what fastify's trustProxy (proxy-addr) takes. */
const proxyAddress = z.string().refine(
  (v) => {
    const [addr, bits, ...more] = v.split('/');
    const family = isIP(addr ?? '');
    if (family === 0 || more.length > 0) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  },
  { error: (iss) => `"${String(iss.input)}" is not an IP address or CIDR range; expected e.g. 127.0.0.1 or 10.0.0.0/8` },
);

const webSection = z.object({ trusted_proxies: z.array(proxyAddress), show_env: z.boolean() }).partial().strict();

const configFile = z.strictObject(
  { notify: notifySection.nullish(), pages: pagesSection.nullish(), jobs: jobsSection.nullish(), web: webSection.nullish() },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown section; config.yaml has notify:, pages:, jobs: and web:` : undefined) },
);

type RawNotifier = z.infer<typeof notifier>;

/** Parses config text; a file without a `notify:` section pages nobody. */
export function parseNotifyConfig(text: string, file: string): NotifyConfig {
  const src = parseYaml(text, file);
  if (src.doc.contents === null) return emptyNotifyConfig();
  const whole = validate(src, configFile);
  const pageKinds = whole.pages?.send ? [...new Set(whole.pages.send)] : [...PAGE_SEND_KINDS];
  const maxBlockedMs = whole.jobs?.max_blocked === undefined ? DEFAULT_MAX_BLOCKED_MS : whole.jobs.max_blocked;
  const web: WebConfig = { trustedProxies: whole.web?.trusted_proxies ?? [], showEnv: whole.web?.show_env ?? false };
  const data = whole.notify;
  if (!data) return { ...emptyNotifyConfig(), pageKinds, maxBlockedMs, web };
  if (data.page_person !== undefined && data.public_url === undefined) {
    throw new InputError('notify.page_person: it names who page links sign in as, and there are no links without notify.public_url', {
      file,
      line: lineAt(src, ['notify', 'page_person']),
    });
  }
  const names = notifierNames(data.notifiers);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) {
      throw new InputError(`notify.notifiers.${i}.name: two notifiers are called "${n}"; give each its own name`, {
        file,
        line: lineAt(src, ['notify', 'notifiers', i]),
      });
    }
  });
  const base = dirname(file);
  return {
    repageAfterMs: data.repage_after === undefined ? DEFAULT_REPAGE_MS : data.repage_after,
    quietHours: data.quiet_hours ?? null,
    notifiers: data.notifiers.map((n, i) => toNotifier(n, names[i]!, base)),
    pageKinds,
    links: data.public_url === undefined ? null : { publicUrl: data.public_url, pagePerson: data.page_person ?? DEFAULT_PAGE_PERSON },
    digestAt: data.digest_at ?? null,
    maxBlockedMs,
    web,
  };
}

/**
 * The outbox keys rows by notifier name, so the default must not depend on
 * position: the kind when it is the only one of its kind, else kind-N.
 */
function notifierNames(list: RawNotifier[]): string[] {
  const seen = new Map<string, number>();
  return list.map((n) => {
    if (n.name) return n.name;
    const nth = (seen.get(n.kind) ?? 0) + 1;
    seen.set(n.kind, nth);
    const many = list.filter((o) => o.kind === n.kind && !o.name).length > 1;
    return many ? `${n.kind}-${nth}` : n.kind;
  });
}

function toNotifier(n: RawNotifier, name: string, base: string): Notifier {
  switch (n.kind) {
    case 'webhook': {
      const headers = Object.fromEntries(Object.entries(n.headers).map(([k, v]) => [k, parseRef(v, base)]));
      return { kind: 'webhook', name, url: parseRef(n.url, base), headers };
    }
    case 'ntfy':
      return { kind: 'ntfy', name, url: parseRef(n.url, base), token: n.token ? parseRef(n.token, base) : null };
    case 'slack':
      return { kind: 'slack', name, url: parseRef(n.url, base) };
    case 'command':
      return { kind: 'command', name, argv: n.argv };
  }
}

/**
 * Reads the config file. A missing file is no config (nobody is paged)
 * unless the caller named it explicitly, when it is a mistake.
 */
export async function loadNotifyConfig(file: string, opts: { mustExist?: boolean } = {}): Promise<NotifyConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT' && !opts.mustExist) return emptyNotifyConfig();
    throw new InputError(`cannot read config: ${(cause as Error).message}`, { file, cause });
  }
  return parseNotifyConfig(text, file);
}

// src/daemon/daemon.ts asks for the empty config this way.
loadNotifyConfig.empty = emptyNotifyConfig;
