// The job's live screen: xterm.js (window.Terminal, from /vendor/xterm)
// fed by the WebSocket …/terminal. The first message is a snapshot of the
// screen (written as is, after a reset), then output as it comes, then
// `end`. Read-only: a person types through the send box, which records it.
// xterm's screen-reader mode is off: it redraws a DOM row per line on every
// frame, and wide plus combining characters froze the page for minutes.
// The screen's text is offered instead as a plain-text mirror ("Screen as
// text"), redrawn at most every MIRROR_MS and never announced.
import { el } from './ui.js';

/** Fonts a phone can still read; below MIN the terminal scrolls sideways instead of shrinking. */
const MIN_FONT = 8;
/** The whole screen is shown when it fits at this size or more. */
const READABLE_FONT = 10;
const MAX_FONT = 15;
const RETRY_MS = 2000;
/** How often at most the plain-text mirror of the screen is redrawn. */
const MIRROR_MS = 1000;
/** Output is handed to xterm this much at a time, the next piece after xterm drew the last. */
const WRITE_CHUNK = 64 * 1024;
/** Past this much output not yet drawn, the page drops it and asks for the screen as it is now. */
const MAX_BEHIND = 2 * 1024 * 1024;

function newTerminal() {
  return new window.Terminal({
    screenReaderMode: false,
    disableStdin: true,
    convertEol: false,
    cols: 120,
    rows: 40,
    fontSize: 12,
    scrollback: 2000,
    fontFamily: 'ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace',
    // A job's output can carry OSC 8 hyperlinks: only http(s), in a new tab that cannot reach back to this one.
    linkHandler: { activate: (_event, uri) => /^https?:\/\//i.test(uri) && window.open(uri, '_blank', 'noopener,noreferrer') },
  });
}

/**
 * A job another host of the fleet runs: its screen as that host stored it
 * (at most every 2 s while it changes), redrawn when it changes, and a link
 * to the owning host's own page for the live terminal.
 */
export function storedTerminal(box) {
  const { host, line } = box;
  const term = newTerminal();
  term.open(host);
  keyboard(term, box.wrap);
  const fit = fitter(term, host, mirror(term, box.text));
  window.addEventListener('resize', fit.now);
  let drawn = null;
  return {
    update(shown) {
      const text = shown.screen ?? '';
      if (text !== drawn) {
        drawn = text;
        term.reset();
        term.write(text.replace(/\r?\n/g, '\r\n'), fit.soon);
      }
      const when = shown.screen_updated ? ` as of ${new Date(shown.screen_updated).toLocaleTimeString()}` : '';
      const words = `Terminal: on host ${shown.job.host}, its screen${when} (stored every 2 s while it changes)`;
      line.replaceChildren(words, ...(shown.live_url ? ['; ', el('a', { href: shown.live_url, id: 'live-link', rel: 'noopener' }, `live on ${shown.job.host}`)] : []));
    },
  };
}

/** Opens the terminal in `host` and connects it; `status(text)` reports the connection in words. */
export function liveTerminal(box, name) {
  const { host, status } = box;
  const term = newTerminal();
  term.open(host);
  keyboard(term, box.wrap);
  const fit = fitter(term, host, mirror(term, box.text));
  window.addEventListener('resize', fit.now);
  let ended = false;
  let written = false;
  let last = '';
  let feed = null;
  // The last screen comes from show, the end from the socket, in either order: written once both are in.
  const paintLast = () => {
    if (!ended || written || !last) return;
    written = true;
    term.write(last.replace(/\r?\n/g, '\r\n'), fit.soon);
  };

  const connect = () => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/api/v1/jobs/${encodeURIComponent(name)}/terminal`);
    status('connecting…');
    // Far behind, a fresh socket's snapshot is the screen as it is now: cheaper than drawing what scrolled past.
    feed = writer(term, fit.soon, () => {
      status('catching up: output came faster than it could be drawn; showing the screen as it is now');
      ws.close(4000, 'behind');
      connect();
    });
    const mine = feed;
    ws.addEventListener('message', (ev) => {
      if (mine !== feed) return;
      const m = JSON.parse(ev.data);
      if (m.type === 'snapshot') {
        term.reset();
        if (m.cols && m.rows) term.resize(m.cols, m.rows);
        written = m.data !== '';
        feed.write(m.data);
        status('live');
      } else if (m.type === 'output') {
        feed.write(m.data);
      } else if (m.type === 'end') {
        ended = true;
        status(`the job ended${m.reason ? ` (${m.reason})` : ''}: this is its last screen`);
        paintLast();
      } else if (m.type === 'error') {
        ended = true;
        status(m.error ?? 'the terminal is not available');
      }
    });
    ws.addEventListener('close', (ev) => {
      if (ended || mine !== feed) return;
      // 1008 (policy): not signed in or not allowed; retrying would not help.
      if (ev.code === 1008 || ev.code === 4401 || ev.code === 4403) return status(`not allowed to watch (${ev.reason || ev.code})`);
      status(`disconnected; retrying in ${RETRY_MS / 1000} s`);
      setTimeout(connect, RETRY_MS);
    });
  };
  connect();
  return {
    /** A job that is not live sends an empty snapshot: its last screen (from show) is written instead, once. */
    lastScreen(text) {
      last = text ?? '';
      paintLast();
    },
  };
}

/**
 * Hands output to xterm a piece at a time, the next after xterm drew the
 * last, so a 10 MB burst never sits in xterm's queue in one go; `behind()`
 * is called (once) when more than MAX_BEHIND waits.
 */
function writer(term, drawn, behind) {
  const queue = [];
  let waiting = 0;
  let busy = false;
  let dropped = false;
  const next = () => {
    const piece = queue.shift();
    if (piece === undefined) return void (busy = false);
    busy = true;
    waiting -= piece.length;
    term.write(piece, () => (drawn(), next()));
  };
  return {
    write(data) {
      if (dropped) return;
      for (let i = 0; i < data.length; i += WRITE_CHUNK) queue.push(data.slice(i, i + WRITE_CHUNK));
      waiting += data.length;
      if (waiting > MAX_BEHIND) {
        dropped = true;
        queue.length = 0;
        return behind();
      }
      if (!busy) next();
    },
  };
}

/** Keeps `pre` holding the visible screen as plain text, redrawn at most every MIRROR_MS. */
function mirror(term, pre) {
  let timer = null;
  const draw = () => {
    timer = null;
    const buf = term.buffer.active;
    const rows = [];
    for (let y = 0; y < term.rows; y++) rows.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    while (rows.length && rows[rows.length - 1] === '') rows.pop();
    pre.textContent = rows.join('\n');
  };
  return () => (timer ??= setTimeout(draw, MIRROR_MS));
}

/**
 * No keyboard trap: Tab passes the terminal (its box is one stop); Enter
 * on the box enters xterm (to select and copy), Escape or Tab leaves it.
 */
function keyboard(term, wrap) {
  const area = term.textarea;
  if (area) area.tabIndex = -1;
  wrap.addEventListener('keydown', (ev) => {
    if (ev.target === wrap && ev.key === 'Enter') {
      ev.preventDefault();
      term.focus();
    }
  });
  term.attachCustomKeyEventHandler((ev) => {
    if (ev.key === 'Tab') return false;
    if (ev.key === 'Escape' && ev.type === 'keydown') {
      wrap.focus();
      return false;
    }
    return true;
  });
}

/**
 * Sizes the font: the whole screen when it fits readably; else so that the
 * columns in use fit the box: a shell prompt's few columns show large on a
 * phone, a full-width TUI as small as MIN_FONT allows, and wider than that
 * scrolls. Measured after writes settle.
 */
function fitter(term, host, mirrored) {
  let timer = null;
  const now = () => {
    timer = null;
    mirrored();
    const screen = host.querySelector('.xterm-screen');
    const box = host.parentElement?.clientWidth ?? host.clientWidth;
    if (!screen || !box || !term.cols) return;
    const perCol = screen.getBoundingClientRect().width / term.cols / term.options.fontSize;
    if (!perCol) return;
    const fontFor = (cols) => Math.min(MAX_FONT, Math.floor(((box - 8) / (cols * perCol)) * 2) / 2);
    // The whole screen when it fits readably (a desk); else the columns in use (a phone), scrolling past MIN_FONT.
    const whole = fontFor(term.cols);
    const size = whole >= READABLE_FONT ? whole : Math.max(MIN_FONT, fontFor(Math.max(usedColumns(term), 40)));
    if (size !== term.options.fontSize) term.options.fontSize = size;
    showCursorRow(term, host);
  };
  return { now, soon: () => (timer ??= setTimeout(now, 150)) };
}

/**
 * A screen taller than the box (40 rows on a phone) scrolls; the row with
 * the cursor, where a program asks its question, is kept in view.
 */
function showCursorRow(term, host) {
  const wrap = host.parentElement;
  if (!wrap || wrap.scrollHeight <= wrap.clientHeight) return;
  const rowPx = host.querySelector('.xterm-screen').getBoundingClientRect().height / term.rows;
  const y = (term.buffer.active.cursorY + 1) * rowPx;
  if (y > wrap.scrollTop + wrap.clientHeight || y < wrap.scrollTop) wrap.scrollTop = Math.max(0, y - wrap.clientHeight / 2);
}

/** The widest row's last non-blank column, over the visible screen. */
function usedColumns(term) {
  const buf = term.buffer.active;
  let widest = 0;
  for (let y = 0; y < term.rows; y++) {
    const line = buf.getLine(buf.viewportY + y);
    if (line) widest = Math.max(widest, line.translateToString(true).length);
  }
  return widest;
}

/**
 * The terminal's card content: the box xterm opens in (one Tab stop), the
 * line saying how it is connected (not announced: it changes with the
 * connection), the keys, and the screen as plain text on demand.
 */
export function terminalBox() {
  const host = el('div', { id: 'terminal' });
  const wrap = el('div', { class: 'term-wrap', id: 'term-wrap', tabindex: '0', role: 'region', 'aria-label': 'Job terminal (read-only)', 'aria-describedby': 'term-keys' }, host);
  const line = el('p', { class: 'term-status', id: 'term-status' }, '');
  const keys = el('p', { class: 'note', id: 'term-keys' }, 'Keys: Tab passes the terminal; Enter on it enters it (to select and copy); Esc leaves it.');
  const text = el('pre', { class: 'term-text', id: 'term-text', 'aria-live': 'off' });
  const details = el('details', { class: 'term-text-box' }, el('summary', {}, 'Screen as text'), text);
  return { wrap, host, text, line, parts: [wrap, line, keys, details], status: (t) => (line.textContent = `Terminal: ${t}`) };
}
