// The HTTP API under /api/v1, as the pages call it: JSON in and out, the
// session cookie for who, and X-CSRF-Token (from /me) on every write.

/** An API answer that is not 2xx: `status` and the server's own sentence. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let csrf = null;

/** The signed-in person `{name, role, csrf}`, or null when nobody is (401). */
export async function me() {
  try {
    const who = await request('GET', '/api/v1/me');
    csrf = who.csrf ?? null;
    return who;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export const get = (path) => request('GET', path);

/** The last answer to each repeated read and its ETag: the server answers 304 while they still hold. */
const kept = new Map();

/** A read the page repeats (the board, a job): the tag goes back, and a 304 gives the answer kept from before. */
export async function getFresh(path) {
  const last = kept.get(path);
  const { doc, res } = await exchange('GET', path, undefined, last ? { 'if-none-match': last.etag } : {});
  if (res.status === 304 && last) return last.doc;
  const etag = res.headers.get('etag');
  if (etag) kept.set(path, { etag, doc });
  return doc;
}

/** A write: the CSRF token goes with it, since the cookie alone would let another site act for the person. */
export const post = (path, body = {}) => request('POST', path, body);

/** `/api/v1/jobs/NAME` + rest, with the name escaped. */
export const jobPath = (name, rest = '') => `/api/v1/jobs/${encodeURIComponent(name)}${rest}`;

async function request(method, path, body) {
  return (await exchange(method, path, body)).doc;
}

async function exchange(method, path, body, extra = {}) {
  const headers = { accept: 'application/json', ...extra };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new ApiError(0, `cannot reach nightshift (${e.message})`);
  }
  const text = await res.text();
  let doc = null;
  try {
    doc = text ? JSON.parse(text) : null;
  } catch {
    doc = null;
  }
  if (!res.ok && res.status !== 304) throw new ApiError(res.status, doc?.error ?? `${method} ${path}: HTTP ${res.status}`);
  return { doc, res };
}

/** While the news stream is down (the daemon restarting, a proxy that cut it), the page still looks now and then. */
const FALLBACK_MS = 45_000;

/**
 * News of the board without polling, for the board and the job page: one
 * server-sent event stream (GET /api/v1/events). `onChange(change)` is
 * called for each change the server pushes (`{version, jobs, blocked}`:
 * `jobs` names the rows that changed), and `onChange(null)` when the page
 * should look anyway: every FALLBACK_MS while the stream is down, and once
 * when a hidden tab comes back after news it missed. While the tab is
 * hidden nothing is fetched: `onHidden(change)` hears the news instead
 * (the board raises a notification from it). Returns stop().
 */
export function subscribe(onChange, onHidden = () => {}) {
  let source = null;
  let fallback = null;
  let seen = null;
  let missed = false;
  const down = () => {
    if (!fallback) fallback = setInterval(() => !document.hidden && onChange(null), FALLBACK_MS);
  };
  const up = () => {
    clearInterval(fallback);
    fallback = null;
  };
  const news = (ev) => {
    const change = JSON.parse(ev.data);
    document.documentElement.dataset.boardVersion = change.version;
    if (change.version === seen) return;
    seen = change.version;
    if (document.hidden) {
      missed = true;
      onHidden(change);
    } else onChange(change);
  };
  let stopped = false;
  const open = () => {
    if (stopped) return;
    source = new EventSource('/api/v1/events');
    source.addEventListener('board', news);
    source.addEventListener('open', up);
    source.addEventListener('error', () => {
      down();
      // EventSource retries a dropped stream by itself; a refusal (401, a proxy's 502) ends it for good: open anew later.
      if (source.readyState === EventSource.CLOSED) setTimeout(open, FALLBACK_MS);
    });
  };
  const visible = () => {
    if (document.hidden || !missed) return;
    missed = false;
    onChange(null);
  };
  document.addEventListener('visibilitychange', visible);
  open();
  return () => {
    stopped = true;
    document.removeEventListener('visibilitychange', visible);
    source?.close();
    up();
  };
}
