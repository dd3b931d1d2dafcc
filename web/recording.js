// The job's recording (asciicast v2, GET …/recording) in asciinema-player.
// Loaded when asked: a long job's recording is large, the player's bundle
// too, and a person paged at night wants the question first.
import { jobPath } from './api.js';
import { el, showError } from './ui.js';

const PLAYER_JS = '/vendor/asciinema-player/asciinema-player.min.js';

let loading = null;

/** Adds the player's script once (a script element from our own origin, as the CSP allows) and resolves when it ran. */
function loadPlayer() {
  loading ??= new Promise((resolve, reject) => {
    const s = el('script', { src: PLAYER_JS });
    s.addEventListener('load', () => resolve(window.AsciinemaPlayer));
    s.addEventListener('error', () => reject(new Error('could not load the recording player')));
    document.head.append(s);
  });
  return loading;
}

export function recordingPanel(box, name) {
  const slot = el('div', { id: 'player' });
  const load = el('button', { type: 'button', id: 'load-recording' }, 'Load the recording');
  load.addEventListener('click', async () => {
    try {
      const player = await loadPlayer();
      slot.replaceChildren();
      // The player fetches the file itself (same origin: the session cookie goes with it).
      player.create(jobPath(name, '/recording'), slot, { fit: 'width', idleTimeLimit: 2, preload: true, controls: true });
      load.textContent = 'Reload the recording';
    } catch (e) {
      showError(e, '#act-error');
    }
  });
  box.replaceChildren(el('p', { class: 'note' }, 'Everything the job showed, to play back.'), el('div', { class: 'buttons' }, load), slot);
}
