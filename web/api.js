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

/** A write: the CSRF token goes with it, since the cookie alone would let another site act for the person. */
export const post = (path, body = {}) => request('POST', path, body);

/** `/api/v1/jobs/NAME` + rest, with the name escaped. */
export const jobPath = (name, rest = '') => `/api/v1/jobs/${encodeURIComponent(name)}${rest}`;

async function request(method, path, body) {
  const headers = { accept: 'application/json' };
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
  if (!res.ok) throw new ApiError(res.status, doc?.error ?? `${method} ${path}: HTTP ${res.status}`);
  return doc;
}
