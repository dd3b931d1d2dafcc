/**
 * A flood's lines that scroll out of the terminal's memory before anyone
 * can look: left out of the parse. Parsing them was 95 % of a daemon's CPU
 * under a 200 MB flood (xterm's print and scroll), and the job waited on it.
 *
 * Safe only for text that moves the cursor in one way: printable
 * characters, tabs, CR LF line ends and colour changes (SGR). Each such line
 * takes at least one row, so after `keep` lines every earlier row has left
 * the buffer (viewport and scrollback) whatever the cursor did before; the
 * rows it overwrote in place (the cursor above the bottom) are older still.
 * What the skipped lines leave behind is only their colour state, so their
 * SGR sequences since the last reset go along. Anything else (cursor moves,
 * bare CR or LF, other escapes, C1 controls) and the data is parsed whole.
 */

/** Lines kept at the end: two screens and the scrollback, see above. */
export function linesToKeep(rows: number, scrollback: number): number {
  return 2 * rows + scrollback;
}

const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;

/**
 * `data` with the lines between its first line end and its last `keep`
 * lines taken out (their SGR state kept), or `data` itself when it is not
 * plain enough or not long enough to gain.
 */
export function collapseScrolled(data: string, keep: number): string {
  const first = data.indexOf('\r\n');
  if (first < 0) return data;
  // Where the kept lines start: just after the CR LF that ends line -(keep+1).
  let from = data.length;
  for (let n = 0; n <= keep; n++) {
    from = data.lastIndexOf('\r\n', from - 1);
    if (from <= first) return data;
  }
  const cut = from + 2;
  if (!plain(data)) return data;
  return data.slice(0, first + 2) + sgrState(data, first + 2, cut) + data.slice(cut);
}

/** The characters plain() must look at: every C0 control but tab, DEL and the C1 controls. */
const SPECIAL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * Printable text (U+0020–U+007E, from U+00A0), tabs, CR LF pairs and SGR
 * sequences only. The regex jumps from one control to the next (a line end,
 * mostly): twice as fast as reading every character in JavaScript, and this
 * scan is most of a flood's cost on the supervisor's thread.
 */
function plain(data: string): boolean {
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(data); m !== null; m = SPECIAL.exec(data)) {
    const i = m.index;
    const c = data.charCodeAt(i);
    let next = -1;
    if (c === CR && data.charCodeAt(i + 1) === LF) next = i + 2;
    else if (c === ESC) {
      const end = sgrEnd(data, i);
      if (end >= 0) next = end + 1;
    }
    if (next < 0) return false;
    SPECIAL.lastIndex = next;
  }
  return true;
}

/** Index of the `m` ending an SGR sequence `ESC [ digits/; m` at `i`, or -1. */
function sgrEnd(data: string, i: number): number {
  if (data.charCodeAt(i + 1) !== 0x5b) return -1;
  for (let j = i + 2; j < data.length; j++) {
    const c = data.charCodeAt(j);
    if (c === 0x6d) return j;
    if (!((c >= 0x30 && c <= 0x39) || c === 0x3b)) return -1;
  }
  return -1;
}

/** The SGR sequences in [from, to) after the last full reset (`ESC[m`, `ESC[0m`): the colour state they leave. */
function sgrState(data: string, from: number, to: number): string {
  let start = from;
  const seqs: string[] = [];
  for (let i = data.indexOf('\x1b', start); i >= 0 && i < to; i = data.indexOf('\x1b', start)) {
    const end = sgrEnd(data, i);
    const seq = data.slice(i, end + 1);
    if (seq === '\x1b[m' || seq === '\x1b[0m') seqs.length = 0;
    seqs.push(seq);
    start = end + 1;
  }
  return seqs.join('');
}
