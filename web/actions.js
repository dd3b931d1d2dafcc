// A person's other acts on a job: send a line, acknowledge its page,
// continue it, cancel it (after a confirm: it cannot be undone), press one
// key. Each is one POST; the API's sentence is shown when it refuses.
import { jobPath, post } from './api.js';
import { confirmThen, el, fill, showError } from './ui.js';

/** Builds the act panel into `box`; returns `update(job)`, which enables what fits the job's state. */
export function actionPanel(box, name, canAct, onActed) {
  const input = el('input', { id: 'send-text', name: 'text', type: 'text', autocomplete: 'off', enterkeyhint: 'send', placeholder: 'A line to type into the job' });
  const sendBtn = el('button', { type: 'submit', id: 'send' }, 'Send');
  const form = el('form', { class: 'send' }, input, sendBtn);
  // Enter goes after the text unless the person says not (a dialog that takes a word as keys).
  const enter = el('input', { id: 'send-enter', type: 'checkbox', checked: true });
  const ack = el('button', { type: 'button', id: 'ack' }, 'Acknowledge page');
  const cont = el('button', { type: 'button', id: 'continue', title: 'go on after a probe stopped the job' }, 'Continue');
  const cancel = el('button', { type: 'button', id: 'cancel', class: 'danger' }, 'Cancel job');

  const act = async (what, path, body, button, answers = false) => {
    showError('', '#act-error');
    button.disabled = true;
    try {
      await post(jobPath(name, path), body);
      onActed(what, answers);
    } catch (e) {
      showError(e, '#act-error');
    } finally {
      button.disabled = !canAct;
    }
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = input.value;
    if (!text) return;
    act(`Sent “${text}”${enter.checked ? ' and Enter' : ' without Enter'}.`, '/send', { text, enter: enter.checked }, sendBtn, true).then(() => (input.value = ''));
  });
  ack.addEventListener('click', () => act('Page acknowledged: no more reminders for it.', '/ack', {}, ack));
  cont.addEventListener('click', () => act('Asked the job to go on.', '/continue', {}, cont));
  cancel.addEventListener('click', () => confirmThen(cancel, `Cancel ${name}? Its program is stopped; this cannot be undone.`, 'Yes, cancel the job', () => act('Cancelled.', '/cancel', {}, cancel)));

  fill(
    box,
    el('label', { class: 'block', for: 'send-text' }, 'Reply'),
    form,
    el('label', { class: 'check', for: 'send-enter' }, enter, ' Press Enter after it'),
    el('div', { class: 'buttons' }, cont, ack, cancel),
    canAct ? null : el('p', { class: 'note' }, 'Viewers cannot act on a job; ask for an operator token.'),
  );

  const controls = [input, enter, sendBtn, ack, cont, cancel];
  return (job) => {
    const live = job.state === 'running' || job.state === 'blocked';
    for (const c of controls) c.disabled = !canAct || !live;
    // Continue ends a probe's block only (src/core/task-state.ts PROBE_BLOCK); a question wants an answer instead.
    cont.disabled = !canAct || !(job.state === 'blocked' && job.reason.code.startsWith('probe:'));
    // A queued job can be cancelled too (it then never starts).
    cancel.disabled = !canAct || job.state === 'done';
  };
}

/** The key pad's keys: [key name for POST …/key, what the button says, its accessible name]. */
const PAD_KEYS = [
  ['enter', 'Enter', 'Enter'],
  ['escape', 'Esc', 'Escape'],
  ['up', '↑', 'Up arrow'],
  ['down', '↓', 'Down arrow'],
  ['left', '←', 'Left arrow'],
  ['right', '→', 'Right arrow'],
  ['y', 'y', 'y'],
  ['n', 'n', 'n'],
  ['ctrl-c', 'Ctrl-C', 'Control C'],
];
/** Keys that can throw away what the program was doing: a second tap confirms them, as an answer is confirmed. */
const RISKY_KEYS = new Set(['escape', 'ctrl-c']);

/**
 * One button per key, each sent alone and without Enter (POST …/key), for a
 * dialog no rule names: `digits` are the ones the dialog shows (else 1–9).
 */
export function keyPad(name, digits, onActed) {
  const keys = [...PAD_KEYS.slice(0, 2), ...digits.map((d) => [d, d, d]), ...PAD_KEYS.slice(2)];
  const pad = el('div', { class: 'key-pad', id: 'key-pad', role: 'group', 'aria-labelledby': 'key-pad-title' });
  for (const [key, text, label] of keys) {
    const button = el('button', { type: 'button', 'data-key': key, 'aria-label': `Press ${label}` }, text);
    const press = async () => {
      showError('', '#act-error');
      try {
        await post(jobPath(name, '/key'), { key });
        onActed(`Pressed ${text}.`, true);
      } catch (e) {
        showError(e, '#act-error');
      }
    };
    button.addEventListener('click', () => (RISKY_KEYS.has(key) ? confirmThen(button, `Press ${text}? It may cancel what the program is doing.`, `Yes, press ${text}`, press) : press()));
    pad.append(button);
  }
  return el('div', { class: 'key-pad-box' }, el('h3', { id: 'key-pad-title', class: 'key-pad-title' }, 'Keys (each sent alone, without Enter)'), pad);
}
