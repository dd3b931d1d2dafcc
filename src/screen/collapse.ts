import { plainBytes } from './plain-scan.js';

/**
 * A flood's lines that scroll out of the terminal's memory before anyone
 * can look: left out of the parse. Parsing them was 95 % of a daemon's CPU
 * under a 200 MB flood (xterm's print and scroll), and the job waited on it.
 *
 * Safe only for text that moves the cursor in one way: printable
 * characters, tabs, CR LF line ends, colour changes (SGR) and erasures
 * within the line (EL, which `ls --color` writes after a coloured name: it
 * changes only its own row and moves nothing). Each such line
 * takes at least one row, so after `keep` lines every earlier row has left
 * the buffer (viewport and scrollback) whatever the cursor did before; the
 * rows it overwrote in place (the cursor above the bottom) are older still.
 * What the skipped lines leave behind is only their colour state, so their
 * SGR sequences since the last reset go along. Anything else (cursor moves,
 * bare CR or LF, other escapes, C1 controls) up to the last line end, but
 * for an LF that begins the data, and the data is parsed whole.
 */

/** Lines kept at the end: two screens and the scrollback, see above. */
export function linesToKeep(rows: number, scrollback: number): number {
  return 2 * rows + scrollback;
}

const ESC = 0x1b;
const CR = 0x0d;
const LF = 0x0a;

/** Text a flood comes as: a drill's strings, or a live job's bytes (UTF-8). */
export type Flood = string | Buffer;

/**
 * `data` with the lines between its first line end and its last `keep`
 * lines taken out (their SGR state kept), or `data` itself when it is not
 * plain enough or not long enough to gain. The same for a string and for
 * UTF-8 bytes: every character the cut looks at is ASCII.
 */
export function collapseScrolled<T extends Flood>(data: T, keep: number): T {
  const first = data.indexOf('\r\n');
  if (first < 0) return data;
  // Where the kept lines start: just after the CR LF that ends line -(keep+1).
  let from = data.length;
  for (let n = 0; n <= keep; n++) {
    from = data.lastIndexOf('\r\n', from - 1);
    if (from <= first) return data;
  }
  const cut = from + 2;
  // What must be plain runs to the last line end: after it, the kept lines have left both parses in one
  // state, and the rest is parsed the same way in either. And it may begin with an LF: a live flood is
  // batched wherever a read ended, so a batch can begin with the LF of the CR LF the batch before ended
  // with, or end with its CR, and either made the whole batch (megabytes, held) "not plain". A bare LF
  // at the start only moves the cursor before anything is skipped, as the first line may.
  const lead = codeAt(data, 0) === LF ? 1 : 0;
  const last = data.lastIndexOf('\r\n') + 2;
  if (typeof data === 'string') {
    if (!plainText(data.slice(lead, last))) return data;
    // join, not +: it copies into a new flat string, where slices joined by +
    // would keep the whole flood alive as long as the kept lines are (V8's
    // sliced and cons strings point into their parent).
    return [data.slice(0, first + 2), sgrState(data, first + 2, cut), data.slice(cut)].join('') as T;
  }
  const bytes = data as Buffer;
  if (!plainBytes(bytes.subarray(lead, last))) return data;
  // A copy, for the same reason: views would keep the whole flood's buffer.
  return Buffer.concat([bytes.subarray(0, first + 2), Buffer.from(sgrState(bytes, first + 2, cut), 'latin1'), bytes.subarray(cut)]) as T;
}

/** The characters plainText() must look at: every C0 control but tab, DEL and the C1 controls. */
const SPECIAL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * Printable text (U+0020–U+007E, from U+00A0), tabs, CR LF pairs and SGR
 * sequences only. The regex jumps from one control to the next (a line end,
 * mostly): twice as fast as reading every character in JavaScript, and this
 * scan is most of a flood's cost on the supervisor's thread.
 */
function plainText(data: string): boolean {
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(data); m !== null; m = SPECIAL.exec(data)) {
    const next = pastControl(data, m.index);
    if (next < 0) return false;
    SPECIAL.lastIndex = next;
  }
  return true;
}

const codeAt = (data: Flood, i: number): number => (typeof data === 'string' ? data.charCodeAt(i) : data[i] ?? NaN);

/** Past a CR LF, an SGR or an EL sequence at `i`; -1 for any other control. */
function pastControl(data: Flood, i: number): number {
  const c = codeAt(data, i);
  if (c === CR && codeAt(data, i + 1) === LF) return i + 2;
  if (c !== ESC) return -1;
  const end = plainCsiEnd(data, i);
  return end < 0 ? -1 : end + 1;
}

const SGR = 0x6d;
const EL = 0x4b;

/** Index of the final `m` (SGR) or `K` (EL) of a sequence `ESC [ digits/; final` at `i`, or -1. */
function plainCsiEnd(data: Flood, i: number): number {
  if (codeAt(data, i + 1) !== 0x5b) return -1;
  for (let j = i + 2; j < data.length; j++) {
    const c = codeAt(data, j);
    if (c === SGR || c === EL) return j;
    if (!((c >= 0x30 && c <= 0x39) || c === 0x3b)) return -1;
  }
  return -1;
}

/** The SGR sequences in [from, to) after the last full reset (`ESC[m`, `ESC[0m`): the colour state they leave. */
function sgrState(data: Flood, from: number, to: number): string {
  let start = from;
  const seqs: string[] = [];
  for (let i = data.indexOf('\x1b', start); i >= 0 && i < to; i = data.indexOf('\x1b', start)) {
    const end = plainCsiEnd(data, i);
    start = end + 1;
    if (codeAt(data, end) !== SGR) continue;
    const seq = typeof data === 'string' ? data.slice(i, end + 1) : data.toString('latin1', i, end + 1);
    if (seq === '\x1b[m' || seq === '\x1b[0m') seqs.length = 0;
    seqs.push(seq);
  }
  return seqs.join('');
}
