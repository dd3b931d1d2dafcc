// The board: the jobs that need a person first (blocked, the one waiting
// longest at the top, with its question and how long it has waited), then
// the rest in the order the CLI's board uses (the API gives them ordered:
// src/board/attention.ts). It updates when the server says the board
// changed (api.js subscribe), not on a timer; a hidden tab fetches nothing
// and raises a notification for a job that newly needs the person.
import { getFresh, post, subscribe } from './api.js';
import { $, clock, el, oneAtATime, reasonText, showError, signedIn, stateLook, statePill } from './ui.js';

/** "blocked for" is recounted on the page, without asking the server. */
const AGO_MS = 30_000;

function row(job) {
  const look = stateLook(job);
  const times = [job.started ? `started ${clock(job.started)}` : `queued ${clock(job.created)}`, job.ended ? `ended ${clock(job.ended)}` : null].filter(Boolean).join(' · ');
  const warn = (job.warnings ?? []).map((w) => w.message ?? w.code).join('; ');
  const blocked = job.state === 'blocked';
  return el(
    'li',
    { 'data-job': job.name, 'data-state': job.state },
    el(
      'a',
      { href: `/jobs/${encodeURIComponent(job.name)}`, class: `row-${look.cls}` },
      el('span', { class: 'job-name' }, job.name),
      statePill(job),
      blocked && job.question ? el('span', { class: 'job-question' }, job.question) : null,
      blocked && job.blocked_since ? el('span', { class: 'job-waited', 'data-since': job.blocked_since }, waited(job.blocked_since)) : null,
      // In words; the code is kept for a fleet row from a host of an older build, which has no words.
      el('span', { class: 'job-reason', title: reasonText(job.reason) }, job.said ?? reasonText(job.reason)),
      // On a fleet board every job names its host.
      job.host ? el('span', { class: 'job-host' }, `on ${job.host}`) : null,
      warn ? el('span', { class: 'job-reason' }, `⚠ ${warn}`) : null,
      el('span', { class: 'job-times' }, times),
    ),
  );
}

/** "blocked for 12 min", as a person reads a wait. */
export function waited(since, now = Date.now()) {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 60) return 'blocked for under a minute';
  const m = Math.floor(s / 60);
  if (m < 60) return `blocked for ${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `blocked for ${h} h ${m % 60} min` : `blocked for ${Math.floor(h / 24)} days`;
}

/** What the filter box and the "needs me" switch let through: the box matches a job's name, command or state. */
function passes(job, words, needsMe) {
  if (needsMe && job.state !== 'blocked') return false;
  if (!words) return true;
  const hay = `${job.name}\n${job.command.join(' ')}\n${stateLook(job).word}`.toLowerCase();
  return words.split(/\s+/).every((w) => hay.includes(w));
}

let jobs = [];
let shown = '';

function render() {
  const words = $('#filter').value.trim().toLowerCase();
  const needsMe = $('#needs-me').getAttribute('aria-pressed') === 'true';
  const list = jobs.filter((j) => passes(j, words, needsMe));
  const waiting = jobs.filter((j) => j.state === 'blocked').length;
  $('#updated').textContent = `${jobs.length} job${jobs.length === 1 ? '' : 's'} · ${waiting} need${waiting === 1 ? 's' : ''} you · updated ${clock(new Date().toISOString())}`;
  // Rebuilt only when something a row shows changed, so a focused link keeps its focus.
  const now = JSON.stringify([words, needsMe, list.map(({ last_activity: _, ...rest }) => rest)]);
  if (now === shown) return;
  shown = now;
  const empty = jobs.length ? 'No job matches.' : 'No jobs yet.';
  $('#jobs').replaceChildren(...(list.length ? list.map(row) : [el('li', { class: 'empty' }, empty)]));
}

async function refresh() {
  try {
    ({ jobs } = await getFresh('/api/v1/jobs'));
    render();
    showError('');
  } catch (e) {
    showError(e);
  }
}

const refreshSoon = oneAtATime(refresh);

/** The blocked jobs last told of: a notification is for a job that newly needs the person, once. */
let known = null;

function notifyNew(blocked, background) {
  const now = new Set(blocked.map((b) => b.name));
  const fresh = known ? blocked.filter((b) => !known.has(b.name)) : [];
  known = now;
  if (!background || !('Notification' in window) || Notification.permission !== 'granted') return;
  for (const b of fresh) {
    const n = new Notification(`${b.name} needs you`, { body: b.question || 'It is blocked.', tag: `nightshift-${b.name}` });
    n.onclick = () => {
      window.focus();
      location.assign(`/jobs/${encodeURIComponent(b.name)}`);
    };
  }
}

/** Asked once, on a tap (browsers refuse a prompt the person did not ask for); the browser remembers the answer. */
function notifyButton() {
  const button = $('#notify');
  if (!('Notification' in window) || Notification.permission !== 'default') return;
  button.hidden = false;
  button.addEventListener('click', async () => {
    await Notification.requestPermission();
    // Answered (allowed or not): nothing left to offer; dismissed unanswered, it stays for another try.
    button.hidden = Notification.permission !== 'default';
  });
}

function controls() {
  $('#filter').addEventListener('input', render);
  const toggle = $('#needs-me');
  toggle.addEventListener('click', () => {
    toggle.setAttribute('aria-pressed', String(toggle.getAttribute('aria-pressed') !== 'true'));
    render();
  });
  $('#sign-out').addEventListener('click', async () => {
    try {
      await post('/api/v1/logout');
      location.assign('/');
    } catch (e) {
      showError(e);
    }
  });
  setInterval(() => document.querySelectorAll('.job-waited').forEach((s) => (s.textContent = waited(s.dataset.since))), AGO_MS);
}

async function main() {
  const who = await signedIn();
  if (!who) return;
  $('#sign-out').hidden = false;
  controls();
  notifyButton();
  await refresh();
  known = new Set(jobs.filter((j) => j.state === 'blocked').map((j) => j.name));
  subscribe(
    (change) => {
      if (change) notifyNew(change.blocked, false);
      return refreshSoon();
    },
    (change) => notifyNew(change.blocked, true),
  );
}

main().catch(showError);
