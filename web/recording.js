// The job's recording (asciicast v2, GET …/recording) in asciinema-player.
// Loaded when asked: a long job's recording is large, and a person paged at
// night wants the question first.
import { jobPath } from './api.js';
import { el } from './ui.js';

export function recordingPanel(box, name) {
  const slot = el('div', { id: 'player' });
  const load = el('button', { type: 'button', id: 'load-recording' }, 'Load the recording');
  load.addEventListener('click', () => {
    slot.replaceChildren();
    // The player fetches the file itself (same origin: the session cookie goes with it).
    window.AsciinemaPlayer.create(jobPath(name, '/recording'), slot, { fit: 'width', idleTimeLimit: 2, preload: true, controls: true });
    load.textContent = 'Reload the recording';
  });
  box.replaceChildren(el('p', { class: 'note' }, 'Everything the job showed, to play back.'), el('div', { class: 'buttons' }, load), slot);
}
