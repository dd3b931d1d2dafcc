// The question a blocked job asks, as text, with the responder's decision
// (what, by which layer, why) and one button per choice the rule offers,
// labelled with what it chooses ("1. Yes", "Esc: No"). Declining is the
// safe default: it goes at once; an answer asks to be confirmed first.
import { jobPath, post } from './api.js';
import { confirmThen, el, fill, reasonText, showError } from './ui.js';

const DECISIONS = {
  answer: 'answer it',
  escalate: 'ask a person',
  decline: 'decline it',
  wait: 'wait',
};

/** Renders into `box` what `shown` (GET /api/v1/jobs/NAME) says about the question; `canAct` false disables the buttons. */
export function renderQuestion(box, shown, canAct, onActed) {
  const { job, prompt } = shown;
  if (!prompt) {
    box.replaceChildren(noQuestion(job));
    return;
  }
  fill(
    box,
    el('pre', { class: 'prompt-text', id: 'prompt-text' }, prompt.text || '(the prompt has no text)'),
    decision(prompt),
    choices(job.name, prompt.episode ?? null, prompt.choices ?? [], canAct && job.state === 'blocked', onActed),
    canAct ? null : el('p', { class: 'note', id: 'viewer-note' }, 'You are signed in as a viewer: you can watch this job, not answer it.'),
  );
}

function noQuestion(job) {
  if (job.state !== 'blocked') return el('p', { class: 'muted', id: 'no-question' }, `No question waiting: the job is ${job.state} (${reasonText(job.reason)}).`);
  return el('p', { class: 'muted', id: 'no-question' }, `Blocked (${reasonText(job.reason)}), on nothing a rule names: send a reply below${job.reason.code.startsWith('probe:') ? ', continue the job' : ''} or cancel it.`);
}

function decision(p) {
  const rows = [
    ['Rule', [p.rule, p.class].filter(Boolean).join(' · ') || 'none'],
    ['Decided', `${DECISIONS[p.decision] ?? p.decision}`],
    ['Layer', p.layer ?? ''],
    ['Why', p.why ?? ''],
  ];
  return el('dl', { class: 'decision', id: 'decision' }, ...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

function choices(name, episode, list, enabled, onActed) {
  const wrap = el('div', { class: 'buttons', id: 'choices' });
  if (!list.length) return el('p', { class: 'note' }, 'The rule offers no keys to press: reply with the text box below.');
  // Decline first: the safe choice is the one under the thumb.
  const sorted = [...list].sort((a, b) => (a.choice === 'decline' ? -1 : 0) - (b.choice === 'decline' ? -1 : 0));
  for (const c of sorted) {
    const label = c.label || c.keys.join(' ');
    const button = el('button', { type: 'button', class: c.choice, 'data-choice': c.choice, disabled: !enabled, title: `sends ${c.keys.join(' ')}` }, label);
    const act = () => answer(name, episode, c.choice, button, onActed);
    button.addEventListener('click', () => (c.choice === 'decline' ? act() : confirmThen(button, `Answer “${label}”? This sends ${c.keys.join(' ')} to the job.`, `Yes, send ${label}`, act)));
    wrap.append(button);
  }
  return wrap;
}

// The episode binds the press to the question on screen: if the job moved on meanwhile, the daemon sends nothing (409).
async function answer(name, episode, choice, button, onActed) {
  showError('', '#act-error');
  button.disabled = true;
  try {
    const r = await post(jobPath(name, '/answer'), episode ? { choice, episode } : { choice });
    onActed(`Sent ${(r?.keys ?? []).join(' ')} (${choice}), recorded as ${r?.answered_by ?? 'you'}.`);
  } catch (e) {
    button.disabled = false;
    showError(e, '#act-error');
  }
}
