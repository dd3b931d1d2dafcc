// The job page, /jobs/NAME: the question and its buttons, the live
// terminal, the other acts, the evidence and the recording. The job record
// (GET …/jobs/NAME, conditional) is read again when the news stream says
// this job's row changed (api.js subscribe); the terminal is pushed.
import { get, getFresh, jobPath, subscribe } from './api.js';
import { actionPanel } from './actions.js';
import { renderQuestion } from './prompt.js';
import { recordingPanel } from './recording.js';
import { liveTerminal, storedTerminal, terminalBox } from './terminal.js';
import { renderTimeline } from './timeline.js';
import { $, el, oneAtATime, reasonText, showError, signedIn, statePill } from './ui.js';

/** The job's name from /jobs/NAME (or ?job=NAME, for the page opened as a file name). */
function jobName() {
  const m = /^\/jobs\/([^/]+)\/?$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]) : new URLSearchParams(location.search).get('job') ?? '';
}

async function main() {
  const name = jobName();
  document.title = `nightshift: ${name}`;
  $('#title').textContent = name;
  const who = await signedIn();
  if (!who) return;
  const canAct = who.role === 'operator';

  const acted = (text, answered = false) => {
    $('#act-ok').textContent = text;
    look();
    if (answered) nextBlocked($('#next'), name).catch((e) => showError(e, '#act-error'));
  };
  const updateActs = actionPanel($('#actions'), name, canAct, acted);
  // On a fleet, a job another host runs streams from that host: here, its stored screen and a link.
  const remote = (await get(jobPath(name))).remote === true;
  if (remote) $('#recording').append(el('p', {}, 'The recording is on the host that runs the job: open its page there.'));
  else recordingPanel($('#recording'), name);
  const term = terminalBox();
  $('#terminal-card').append(...term.parts);
  const live = remote ? null : liveTerminal(term, name);
  const stored = remote ? storedTerminal(term) : null;

  let question = '';
  let evidence = '';
  const refresh = async () => {
    const shown = await getFresh(jobPath(name));
    const { job } = shown;
    $('#state').replaceChildren(statePill(job));
    $('#reason').textContent = shown.said ?? `Reason: ${reasonText(job.reason)}`;
    $('#reason').title = reasonText(job.reason);
    updateActs(job);
    if (stored) stored.update(shown);
    else if (job.state === 'done') live.lastScreen(shown.screen);
    // Redrawn only when it changed: an open confirm box must survive a poll.
    const q = JSON.stringify([shown.prompt, job.state]);
    if (q !== question) {
      question = q;
      renderQuestion($('#question'), shown, canAct, acted);
      // The one announcement the page makes by itself, politely: the question.
      $('#q-live').textContent = shown.prompt && job.state === 'blocked' ? `Question: ${shown.prompt.text}` : '';
    }
    // show carries the last few evidence records: the full list is fetched when they move.
    const ev = JSON.stringify([shown.evidence, job.state]);
    if (ev !== evidence) {
      evidence = ev;
      renderTimeline($('#timeline'), (await get(jobPath(name, '/evidence'))).records ?? []);
    }
  };
  const look = oneAtATime(() => refresh().then(() => showError(''), showError));
  await look();
  subscribe((change) => (!change || change.jobs.includes(name) ? look() : undefined));
}

/**
 * The job that has waited for a person longest, other than this one, as a
 * link; else that nothing else needs them. The board comes in attention
 * order (src/board/attention.ts: blocked first, the longest waiting at the top).
 */
async function nextBlocked(box, name) {
  const { jobs } = await get('/api/v1/jobs');
  const waiting = (jobs ?? []).filter((j) => j.state === 'blocked' && j.name !== name);
  const next = waiting[0];
  const board = el('a', { href: '/', class: 'q-board', id: 'back-to-board' }, 'Back to the board');
  if (!next) {
    box.replaceChildren(el('p', { id: 'next-none' }, 'Nothing else needs you.'), board);
    return;
  }
  const more = waiting.length > 1 ? ` (${waiting.length - 1} more after it)` : '';
  box.replaceChildren(
    el('a', { href: `/jobs/${encodeURIComponent(next.name)}`, class: 'q-next', id: 'next-job', 'data-job': next.name }, `Next blocked job: ${next.name}`),
    el('p', { class: 'muted' }, `${reasonText(next.reason)}${more}`),
    board,
  );
}

main().catch(showError);
