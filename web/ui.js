// Small DOM helpers shared by the pages. Text always goes in as text
// (textContent), never as HTML: job names, prompts and screens are the
// agent's and may hold anything.
import { ApiError, me, post } from './api.js';

/** `el('li', {class: 'x'}, 'text', child)`: attributes, then children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

export const $ = (sel) => document.querySelector(sel);

/** Replaces `box`'s children, leaving out the null and false ones (a part shown only sometimes). */
export const fill = (box, ...children) => box.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));

/**
 * Shows an error sentence in an alert region (role=alert, so a screen reader
 * says it); '' clears it. Polls use #error, a person's acts their own region,
 * so the next poll does not wipe what an act said.
 */
export function showError(e, where = '#error') {
  const box = $(where);
  if (!box) return;
  box.textContent = e ? (e instanceof Error ? e.message : String(e)) : '';
}

/** A job's state as the pill shows it: the class for its colour and the word written in it. */
export function stateLook(job) {
  const { state, reason } = job;
  if (state === 'done') return succeeded(reason) ? { cls: 'done-ok', word: 'done' } : { cls: 'done-bad', word: 'done (failed)' };
  // A question waits for a person (amber); any other block (hung, escalated, a probe) is red.
  if (state === 'blocked') return reason.code === 'prompt' || reason.code === 'unknown-prompt' ? { cls: 'waiting', word: 'blocked' } : { cls: 'blocked', word: 'blocked' };
  return { cls: state, word: state };
}

/** As src/core/outcome.ts isSuccess reads the wire reason: an exit with status 0, or an agent's finished turn. */
export const succeeded = (r) => r.code === 'turn-ended' || (r.code === 'exit' && (r.exit_code ?? 0) === 0 && !r.signal);

export function statePill(job) {
  const look = stateLook(job);
  return el('span', { class: `state state-${look.cls}` }, look.word);
}

/** The reason in words, as the CLI's board writes it (src/daemon/reason-text.ts), with its detail. */
export function reasonText(r) {
  const short = [r.code, r.rule, r.class, r.exit_code !== undefined && r.exit_code !== null ? `code ${r.exit_code}` : undefined, r.signal].filter(Boolean).join(' ');
  return r.detail ? `${short}: ${r.detail}` : short;
}

/** A local clock time for an ISO stamp: the time today, the date too otherwise. */
export function clock(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString([], { hour12: false }) : d.toLocaleString([], { hour12: false });
}

/**
 * Who is signed in, written into the header; when nobody is, a sign-in form
 * replaces `main` and null is returned (the page stops there).
 */
export async function signedIn() {
  const who = await me();
  const slot = $('#who');
  if (who) {
    if (slot) slot.textContent = `Signed in as ${who.name} (${who.role})`;
    return who;
  }
  if (slot) slot.textContent = 'Not signed in';
  const main = $('main');
  main.className = '';
  // The alert region stays: a refused token is said there.
  main.replaceChildren($('#error') ?? el('div', { class: 'alert', id: 'error', role: 'alert' }), loginForm());
  $('#token')?.focus();
  return null;
}

function loginForm() {
  const input = el('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'current-password', required: true });
  const form = el(
    'form',
    { class: 'login', 'aria-labelledby': 'login-title' },
    el('h2', { id: 'login-title' }, 'Sign in'),
    el('p', { class: 'muted' }, 'Open the login link from `nightshift web token NAME`, or paste the token here.'),
    el('label', { for: 'token' }, 'Token'),
    input,
    el('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try {
      await post('/api/v1/login', { token: input.value.trim() });
      location.reload();
    } catch (e) {
      showError(e instanceof ApiError && e.status === 401 ? 'That token is not valid (revoked or mistyped).' : e);
    }
  });
  return el('section', { class: 'card' }, form);
}

/** One run at a time: calls that come while one is on its way make one more run after it, however many came. */
export function oneAtATime(fn) {
  let running = null;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return running;
    }
    running = fn().finally(() => {
      running = null;
      if (again) {
        again = false;
        run();
      }
    });
    return running;
  };
  return run;
}

/**
 * A second step before an act that cannot be taken back: a box after
 * `anchor` asks `question`; its first button does `onYes`, the other (which
 * gets the focus: backing out is the safe default) closes it, as Escape does.
 */
export function confirmThen(anchor, question, yesLabel, onYes) {
  anchor.parentElement.querySelector('.confirm-box')?.remove();
  const box = el('div', { class: 'confirm-box', role: 'group', 'aria-label': 'Confirm' });
  const close = () => (box.remove(), anchor.focus());
  const back = el('button', { type: 'button', onclick: close }, 'Back');
  box.addEventListener('keydown', (ev) => ev.key === 'Escape' && (ev.preventDefault(), close()));
  const yes = el('button', { type: 'button', class: 'confirm', onclick: () => (box.remove(), onYes()) }, yesLabel);
  box.append(el('p', {}, question), yes, back);
  anchor.after(box);
  back.focus();
}
