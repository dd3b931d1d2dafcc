// The question a blocked job asks, subject first: what is being approved
// (the command, file or URL) in large text, its risk in the words pages
// use, one button per choice the dialog offers, and a key pad for any
// blocked job (keys go without Enter). Declining is the safe default: it
// goes at once; an answer, Esc and Ctrl-C ask to be confirmed first.
import { jobPath, post } from './api.js';
import { keyPad } from './actions.js';
import { confirmThen, el, fill, reasonText, showError } from './ui.js';

const DECISIONS = {
  answer: 'answer it',
  escalate: 'ask a person',
  decline: 'decline it',
  wait: 'wait',
};

const SUBJECT_KIND = { command: 'Command', file: 'File', url: 'Address' };

/** Renders into `box` what `shown` (GET /api/v1/jobs/NAME) says about the question; `canAct` false disables the buttons and leaves out the key pad. */
export function renderQuestion(box, shown, canAct, onActed) {
  const { job, prompt } = shown;
  const enabled = canAct && job.state === 'blocked';
  const pad = enabled ? keyPad(job.name, digitsOf(prompt), onActed) : null;
  if (!prompt) {
    fill(box, noQuestion(job), pad);
    return;
  }
  fill(
    box,
    subject(prompt),
    prompt.risk_words ? el('p', { class: 'q-risk', id: 'q-risk' }, `Risk: ${prompt.risk_words}`) : null,
    choices(job.name, prompt, enabled, onActed),
    pad,
    el('details', { class: 'q-more' }, el('summary', {}, 'The whole prompt and the decision'), el('pre', { class: 'prompt-text', id: 'prompt-text' }, prompt.text || '(the prompt has no text)'), decision(prompt)),
    canAct ? null : el('p', { class: 'note', id: 'viewer-note' }, 'You are signed in as a viewer: you can watch this job, not answer it.'),
  );
}

/** The digits a dialog offers, else all of 1–9. */
function digitsOf(prompt) {
  const shown = (prompt?.options ?? []).map((o) => o.key);
  return shown.length ? shown : ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
}

function questionLine(text) {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return [...lines].reverse().find((l) => l.includes('?')) ?? lines.at(-1) ?? '';
}

/** What is approved, large and wrapped (never scrolled sideways), then the question itself. */
function subject(p) {
  const s = p.subject;
  return el(
    'div',
    { class: 'q-subject', id: 'q-subject' },
    s ? el('span', { class: 'q-kind' }, SUBJECT_KIND[s.kind] ?? s.kind) : null,
    s ? el('code', { class: 'q-what', id: 'q-what' }, s.text) : null,
    el('p', { class: 'q-ask', id: 'q-ask' }, questionLine(p.text) || '(the prompt has no text)'),
  );
}

function noQuestion(job) {
  if (job.state !== 'blocked') return el('p', { class: 'muted', id: 'no-question' }, `No question waiting: the job is ${job.state} (${reasonText(job.reason)}).`);
  return el('p', { class: 'muted', id: 'no-question' }, `Blocked (${reasonText(job.reason)}), on nothing a rule names: press its keys below${job.reason.code.startsWith('probe:') ? ', continue the job' : ''} or cancel it.`);
}

function decision(p) {
  const rows = [
    ['Rule', p.rule ?? 'none'],
    ['Decided', `${DECISIONS[p.decision] ?? p.decision}`],
    ['Layer', p.layer ?? ''],
    ['Why', p.why ?? ''],
  ];
  return el('dl', { class: 'decision', id: 'decision' }, ...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

/**
 * The rule's answer and decline, and each option the dialog shows (by its
 * digit) that the rule's keys do not already press. Decline first: the
 * safe choice is the one under the thumb.
 */
function choices(name, p, enabled, onActed) {
  const list = [...(p.choices ?? [])].map((c) => ({ kind: c.choice, label: c.label || c.keys.join(' '), keys: c.keys, body: { choice: c.choice } }));
  for (const o of p.options ?? []) {
    if (list.some((c) => c.keys.length === 1 && c.keys[0] === o.key)) continue;
    const kind = /^no\b/i.test(o.label) ? 'decline' : 'answer';
    list.push({ kind, label: `${o.key}. ${o.label}`, keys: [o.key], body: { key: o.key } });
  }
  if (!list.length) return el('p', { class: 'note' }, 'The rule offers no keys to press: use the keys below or reply with the text box.');
  list.sort((a, b) => (a.kind === 'decline' ? -1 : 0) - (b.kind === 'decline' ? -1 : 0));
  const wrap = el('div', { class: 'buttons q-choices', id: 'choices' });
  for (const c of list) {
    const button = el('button', { type: 'button', class: c.kind, 'data-choice': c.kind, 'data-keys': c.keys.join(' '), disabled: !enabled, title: `sends ${c.keys.join(' ')}` }, c.label);
    const act = () => answer(name, p.episode ?? null, c.body, button, onActed);
    button.addEventListener('click', () => (c.kind === 'decline' ? act() : confirmThen(button, `Answer “${c.label}”? This sends ${c.keys.join(' ')} to the job.`, `Yes, send ${c.label}`, act)));
    wrap.append(button);
  }
  return wrap;
}

// The episode binds the press to the question on screen: if the job moved on meanwhile, the daemon sends nothing (409).
async function answer(name, episode, body, button, onActed) {
  showError('', '#act-error');
  button.disabled = true;
  try {
    const r = await post(jobPath(name, '/answer'), episode ? { ...body, episode } : body);
    onActed(`Sent ${(r?.keys ?? []).join(' ')} (${body.choice ?? 'key'}), recorded as ${r?.answered_by ?? 'you'}.`, true);
  } catch (e) {
    button.disabled = false;
    showError(e, '#act-error');
  }
}
