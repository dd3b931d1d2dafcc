// The board: every job with its state (colour and word) and reason, live.
// Polled every 2 s: the API has no push for the board, and 2 s is what a
// person waiting on a phone notices least while costing the daemon little.
import { get } from './api.js';
import { $, clock, el, every, reasonText, showError, signedIn, stateLook, statePill } from './ui.js';

const POLL_MS = 2000;

function row(job) {
  const look = stateLook(job);
  const times = [job.started ? `started ${clock(job.started)}` : `queued ${clock(job.created)}`, job.ended ? `ended ${clock(job.ended)}` : null].filter(Boolean).join(' · ');
  const warn = (job.warnings ?? []).map((w) => w.message ?? w.code).join('; ');
  return el(
    'li',
    { 'data-job': job.name, 'data-state': job.state },
    el(
      'a',
      { href: `/jobs/${encodeURIComponent(job.name)}`, class: `row-${look.cls}` },
      el('span', { class: 'job-name' }, job.name),
      statePill(job),
      el('span', { class: 'job-reason' }, reasonText(job.reason)),
      // On a fleet board every job names its host.
      job.host ? el('span', { class: 'job-host' }, `on ${job.host}`) : null,
      warn ? el('span', { class: 'job-reason' }, `⚠ ${warn}`) : null,
      el('span', { class: 'job-times' }, times),
    ),
  );
}

/** Blocked first (they wait for a person), then running, queued, and the newest done. */
const ORDER = { blocked: 0, running: 1, queued: 2, done: 3 };
const byUrgency = (a, b) => ORDER[a.state] - ORDER[b.state] || String(b.ended ?? b.created).localeCompare(String(a.ended ?? a.created));

let shown = '';

async function refresh() {
  const { jobs } = await get('/api/v1/jobs');
  $('#updated').textContent = `${jobs.length} job${jobs.length === 1 ? '' : 's'} · updated ${clock(new Date().toISOString())}`;
  // Rebuilt only when something a row shows changed, so a focused link keeps its focus.
  const now = JSON.stringify(jobs.map(({ last_activity: _, ...rest }) => rest));
  if (now === shown) return;
  shown = now;
  const list = $('#jobs');
  list.replaceChildren(...(jobs.length ? [...jobs].sort(byUrgency).map(row) : [el('li', { class: 'empty' }, 'No jobs yet.')]));
}

signedIn()
  .then((who) => who && every(POLL_MS, refresh))
  .catch(showError);
