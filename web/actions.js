// A person's other acts on a job: send a line, acknowledge its page,
// continue it, cancel it (after a confirm: it cannot be undone). Each is one
// POST; the API's sentence is shown when it refuses.
import { jobPath, post } from './api.js';
import { confirmThen, el, showError } from './ui.js';

/** Builds the act panel into `box`; returns `update(job)`, which enables what fits the job's state. */
export function actionPanel(box, name, canAct, onActed) {
  const input = el('input', { id: 'send-text', name: 'text', type: 'text', autocomplete: 'off', enterkeyhint: 'send', placeholder: 'A line to type into the job' });
  const sendBtn = el('button', { type: 'submit', id: 'send' }, 'Send');
  const form = el('form', { class: 'send' }, input, sendBtn);
  const ack = el('button', { type: 'button', id: 'ack' }, 'Acknowledge page');
  const cont = el('button', { type: 'button', id: 'continue' }, 'Continue');
  const cancel = el('button', { type: 'button', id: 'cancel', class: 'danger' }, 'Cancel job');

  const act = async (what, path, body, button) => {
    showError('', '#act-error');
    button.disabled = true;
    try {
      await post(jobPath(name, path), body);
      onActed(what);
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
    act(`Sent “${text}” and Enter.`, '/send', { text }, sendBtn).then(() => (input.value = ''));
  });
  ack.addEventListener('click', () => act('Page acknowledged: no more reminders for it.', '/ack', {}, ack));
  cont.addEventListener('click', () => act('Asked the job to go on.', '/continue', {}, cont));
  cancel.addEventListener('click', () => confirmThen(cancel, `Cancel ${name}? Its program is stopped; this cannot be undone.`, 'Yes, cancel the job', () => act('Cancelled.', '/cancel', {}, cancel)));

  box.replaceChildren(
    el('label', { class: 'block', for: 'send-text' }, 'Reply (sent with Enter)'),
    form,
    el('div', { class: 'buttons' }, cont, ack, cancel),
    canAct ? null : el('p', { class: 'note' }, 'Viewers cannot act on a job; ask for an operator token.'),
  );

  const controls = [input, sendBtn, ack, cont, cancel];
  return (job) => {
    const live = job.state === 'running' || job.state === 'blocked';
    for (const c of controls) c.disabled = !canAct || !live;
    // A queued job can be cancelled too (it then never starts).
    cancel.disabled = !canAct || job.state === 'done';
  };
}
