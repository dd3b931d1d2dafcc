/**
 * A recording's output as lines of plain text, the way a person reads a log:
 * escape sequences out, a line rewritten in place (`\r`, erase-line, cursor
 * left) kept in its last state, and a block redrawn from above (cursor up,
 * as spinners and TUIs do) kept as its last frame rather than every frame.
 *
 * A small model of the terminal's bottom page: the last `height` lines stay
 * open to rewrites and only become final when they scroll off it (or at the
 * end). Lines are logical lines, never wrapped at the terminal's width.
 */

type Emit = (line: string) => void;

const ESC = '\x1b';
/** A run of text with no control character in it (C0, DEL, C1). */
const PRINTABLE = /[^\x00-\x1f\x7f-\x9f]+/y;

type Mode = 'ground' | 'esc' | 'csi' | 'string' | 'string-esc' | 'charset';

export class CastText {
  /** The open lines (the bottom page), top first; the cursor's line is rows[row]. */
  private rows: string[] = [''];
  private row = 0;
  private col = 0;
  private mode: Mode = 'ground';
  private params = '';

  constructor(
    private height: number,
    private readonly emit: Emit,
  ) {}

  resize(height: number): void {
    this.height = Math.max(1, height);
    this.scrollOff();
  }

  /** Output text, in any pieces: an escape sequence split between two calls is still one. */
  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.mode === 'ground') {
        PRINTABLE.lastIndex = i;
        const run = PRINTABLE.exec(text);
        if (run) {
          this.put(run[0]);
          i += run[0].length;
          continue;
        }
        this.control(text[i]!);
      } else {
        this.sequence(text[i]!);
      }
      i++;
    }
  }

  /** Makes final the lines above the cursor: a follower shows them after a quiet moment. */
  settle(): void {
    while (this.row > 0) this.commitTop();
  }

  /** The end of the output: every open line is final, blank lines at the bottom dropped. */
  end(): void {
    const lines = this.rows.map(trimEnd);
    while (lines.at(-1) === '') lines.pop();
    for (const line of lines) this.emit(line);
    this.rows = [''];
    this.row = 0;
    this.col = 0;
  }

  private put(run: string): void {
    const line = this.rows[this.row]!;
    const at = line.length < this.col ? line + ' '.repeat(this.col - line.length) : line;
    this.rows[this.row] = at.slice(0, this.col) + run + at.slice(this.col + run.length);
    this.col += run.length;
  }

  private control(c: string): void {
    switch (c) {
      case '\n':
      case '\v':
      case '\f':
        this.down(1);
        this.col = 0;
        return;
      case '\r':
        this.col = 0;
        return;
      case '\b':
        this.col = Math.max(0, this.col - 1);
        return;
      case '\t':
        this.col = (Math.floor(this.col / 8) + 1) * 8;
        return;
      case ESC:
        this.mode = 'esc';
        return;
      case '\x9b':
        this.startCsi();
        return;
      case '\x90':
      case '\x9d':
      case '\x9e':
      case '\x9f':
        this.mode = 'string';
        return;
      default:
      // BEL, SI/SO and the rest draw nothing.
    }
  }

  private sequence(c: string): void {
    switch (this.mode) {
      case 'esc':
        return this.escape(c);
      case 'csi':
        if (c >= '@' && c <= '~') {
          this.mode = 'ground';
          this.csi(c);
        } else this.params += c;
        return;
      case 'string':
        // OSC (titles, links), DCS, APC, PM: to BEL or ST, nothing shown.
        if (c === '\x07' || c === '\x9c') this.mode = 'ground';
        else if (c === ESC) this.mode = 'string-esc';
        return;
      case 'string-esc':
        this.mode = c === '\\' ? 'ground' : 'string';
        return;
      case 'charset':
        this.mode = 'ground';
        return;
      default:
    }
  }

  private escape(c: string): void {
    this.mode = 'ground';
    if (c === '[') this.startCsi();
    else if (c === ']' || c === 'P' || c === '_' || c === '^' || c === 'X') this.mode = 'string';
    else if (c === '(' || c === ')' || c === '*' || c === '+' || c === '#' || c === '%') this.mode = 'charset';
    else if (c === 'M') this.up(1);
    else if (c === 'E') {
      this.down(1);
      this.col = 0;
    } else if (c === 'D') this.down(1);
  }

  private startCsi(): void {
    this.mode = 'csi';
    this.params = '';
  }

  private csi(final: string): void {
    // Private sequences (`?25l`, `>c`) change modes, never the text.
    if (/^[?<=>]/.test(this.params)) return;
    const args = this.params.split(';').map((p) => Number.parseInt(p, 10));
    const n = Number.isFinite(args[0]) && args[0]! > 0 ? args[0]! : 1;
    switch (final) {
      case 'A':
        return this.up(n);
      case 'B':
        return this.down(n);
      case 'C':
        this.col += n;
        return;
      case 'D':
        this.col = Math.max(0, this.col - n);
        return;
      case 'E':
        this.down(n);
        this.col = 0;
        return;
      case 'F':
        this.up(n);
        this.col = 0;
        return;
      case 'G':
      case '`':
        this.col = n - 1;
        return;
      case 'H':
      case 'f':
        return this.moveTo(n, Number.isFinite(args[1]) && args[1]! > 0 ? args[1]! : 1);
      case 'K':
        return this.eraseLine(Number.isFinite(args[0]) ? args[0]! : 0);
      case 'J':
        return this.eraseScreen(Number.isFinite(args[0]) ? args[0]! : 0);
      default:
      // Colours (m) and the rest: style only.
    }
  }

  private eraseLine(how: number): void {
    const line = this.rows[this.row]!;
    if (how === 0) this.rows[this.row] = line.slice(0, this.col);
    else if (how === 1) this.rows[this.row] = ' '.repeat(Math.min(this.col + 1, line.length)) + line.slice(this.col + 1);
    else this.rows[this.row] = '';
  }

  private eraseScreen(how: number): void {
    if (how === 0) {
      this.eraseLine(0);
      this.rows.length = this.row + 1;
      return;
    }
    // Cleared whole: what was on the page was seen, so it stays in the log; the page starts empty.
    if (how >= 2) {
      this.end();
      return;
    }
    for (let i = 0; i < this.row; i++) this.rows[i] = '';
    this.eraseLine(1);
  }

  /** Row r, column c of the page (1-based), the page being the bottom `height` lines. */
  private moveTo(r: number, c: number): void {
    const top = Math.max(0, this.rows.length - this.height);
    const want = Math.min(top + r - 1, top + this.height - 1);
    while (this.rows.length <= want) this.rows.push('');
    this.row = want;
    this.col = c - 1;
  }

  private up(n: number): void {
    this.row = Math.max(0, this.row - n);
  }

  private down(n: number): void {
    this.row += n;
    while (this.rows.length <= this.row) this.rows.push('');
    this.scrollOff();
  }

  /** Lines pushed above the page are final. */
  private scrollOff(): void {
    while (this.rows.length > this.height && this.row > 0) this.commitTop();
  }

  private commitTop(): void {
    this.emit(trimEnd(this.rows.shift()!));
    this.row--;
  }
}

function trimEnd(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x20) end--;
  return s.slice(0, end);
}
