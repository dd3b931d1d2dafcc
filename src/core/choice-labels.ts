/**
 * What a rule's keys choose, read from the screen they would be pressed on,
 * for the web page's buttons: "1. Yes", "Esc: cancel", "n: No". A person
 * on a phone taps a label, not a key name, so the label must say what the
 * program offers for that key; when the screen says nothing about the key
 * the label is the key's own name ("Esc", "Enter", "n").
 *
 * Pure: no I/O, no imports, so the daemon (show's prompt.choices) and tests
 * call it alike. Key names are those of keys.ts.
 */

/** The longest label: a button on a 390 px wide screen holds about this much over two lines. */
const MAX = 60;

/** Named keys as a person reads them on a keyboard. */
const DISPLAY: Readonly<Record<string, string>> = {
  escape: 'Esc', esc: 'Esc', enter: 'Enter', return: 'Enter', tab: 'Tab', backtab: 'Shift-Tab', 'shift-tab': 'Shift-Tab',
  space: 'Space', up: 'Up', down: 'Down', left: 'Left', right: 'Right', backspace: 'Backspace', delete: 'Delete',
  home: 'Home', end: 'End', pageup: 'PageUp', pagedown: 'PageDown',
};

/** The words a screen uses for a named key ("esc to cancel", "↵ confirm"). */
const SPOKEN: Readonly<Record<string, readonly string[]>> = {
  escape: ['esc', 'escape'],
  enter: ['enter', 'return', '↵'],
  tab: ['tab'],
  space: ['space'],
};

/** A menu's cursor marks, as the agents draw them (❯ Claude, › Codex, ● Gemini, → Kimi and Cursor). */
const CURSOR = '[❯›>●→▶]';

export function choiceLabel(keys: readonly string[], screen: readonly string[]): string {
  const first = keys[0];
  if (first === undefined) return '';
  const key = canonical(first);
  const lines = screen.map(inner).filter((l) => l !== '').reverse();
  const said = /^\d$/.test(key) ? numbered(key, lines) : /^[a-z]$/i.test(key) ? lettered(key, lines) : named(key, lines);
  return said === undefined ? keyName(first) : clip(said);
}

/** The key's name for a label with nothing on screen: "Esc", "Ctrl-C", "n". */
export function keyName(key: string): string {
  const k = canonical(key);
  const ctrl = /^ctrl-([a-z])$/.exec(k);
  if (ctrl) return `Ctrl-${ctrl[1]!.toUpperCase()}`;
  return DISPLAY[k] ?? key;
}

function canonical(key: string): string {
  if (/^[A-Za-z0-9]$/.test(key)) return key;
  const k = key.trim().toLowerCase().replace(/\+/g, '-');
  return k === 'esc' ? 'escape' : k === 'return' ? 'enter' : k;
}

/** A row without the dialog box around it (│ … │, Copilot's and Gemini's frames; ┃ opencode's bar). */
function inner(line: string): string {
  return line.replace(/^[\s│┃║▎]+/, '').replace(/[\s│┃║]+$/, '');
}

/** "1" → "1. Yes" from `❯ 1. Yes`, `│ ● 1. Allow once │` or Kimi's `→ [1] Approve once`. */
function numbered(d: string, lines: readonly string[]): string | undefined {
  const re = new RegExp(`^(?:${CURSOR}\\s*)?(?:${d}[.)]|\\[${d}\\])\\s+(\\S.*)$`);
  for (const l of lines) {
    const m = re.exec(l);
    if (m) return `${d}. ${withoutHint(m[1]!)}`;
  }
  return undefined;
}

/** A letter: an option hinted with it ("Run (once) (y)"), Aider's "(N)o", or a yes/no question. */
function lettered(k: string, lines: readonly string[]): string | undefined {
  const lower = k.toLowerCase();
  const prefix = (what: string): string => `${k}: ${what}`;
  for (const l of lines) {
    const hinted = hintedOption(l, lower);
    if (hinted !== undefined) return prefix(hinted);
    const aider = new RegExp(`\\(${lower}\\)([\\w'’]+(?: [\\w'’]+)*)`, 'i').exec(l);
    if (aider) return prefix(`${aider[0][1]!.toUpperCase()}${aider[1]}`);
  }
  // Only the bottom row: a question further up was asked (and answered) before.
  const last = lines[0];
  const yn = last !== undefined && (lower === 'y' || lower === 'n') ? yesNo(last, lower) : undefined;
  return yn === undefined ? undefined : prefix(yn);
}

/**
 * y/n at a yes/no question: `[y/N]`, `(Y/n)`, `[yes/no]`, npm's lone `(y)`
 * after a question, or a bare question (rm -i, cp -i), where y and n mean
 * yes and no by the convention every such tool follows (the last row only).
 */
function yesNo(line: string, k: 'y' | 'n'): string | undefined {
  const word = k === 'y' ? 'Yes' : 'No';
  if (/[[(](?:y|yes)\/(?:n|no)[\])]/i.test(line)) return word;
  if (/\?\s*\(y\)\s*$/i.test(line)) return word;
  if (/\?\s*$/.test(line) && !/[[(]/.test(line)) return word;
  return undefined;
}

/** A named key: the option hinted with it ("No (Esc)"), "Esc to cancel", or the row under the cursor for Down. */
function named(key: string, lines: readonly string[]): string | undefined {
  const name = keyName(key);
  if (key === 'down' || key === 'up') {
    const row = neighbour(lines, key === 'down' ? -1 : 1);
    return row === undefined ? undefined : `${name}: ${row}`;
  }
  const words = SPOKEN[key];
  if (!words) return undefined;
  for (const l of lines) {
    for (const w of words) {
      const hinted = hintedOption(l, w);
      if (hinted !== undefined) return `${name}: ${hinted}`;
    }
  }
  for (const l of lines) {
    const verb = toVerb(l, words);
    if (verb !== undefined) return `${name}: ${verb}`;
  }
  return undefined;
}

/**
 * An option row whose trailing hint names the key: "3. No (Esc)",
 * "3. No, suggest changes (esc)", "Skip (esc or n)", "1. Yes, proceed (y)".
 * Gives the option's text without its number and hint.
 */
function hintedOption(line: string, word: string): string | undefined {
  const m = new RegExp(`^(?:${CURSOR}\\s*)?(?:\\d+[.)]\\s+)?(.*\\S)\\s*\\(([^()]*)\\)$`).exec(line);
  if (!m) return undefined;
  const hint = m[2]!.toLowerCase().split(/\s+or\s+|\s*,\s*|\s+to\s+/);
  if (!hint.includes(word)) return undefined;
  // A question with a hint ("Ok to proceed? (y)") is not an option: yesNo reads it.
  if (m[1]!.endsWith('?')) return undefined;
  return m[1]!;
}

/** "Esc to cancel · Tab to amend" → "cancel"; "↵ confirm", "enter confirm" → "confirm". */
function toVerb(line: string, words: readonly string[]): string | undefined {
  for (const w of words) {
    const esc = w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const m = new RegExp(`(?:^|[\\s·(])${esc}\\s+(?:to\\s+)?([a-z][a-z' ]*?)(?=\\s*(?:[·|,)]|$)|\\s+or\\s|\\s{2,})`, 'i').exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** The option next to the cursor row (`❯ No, exit` then `Yes, I trust this folder`): step -1 is the row below (lines run bottom-up). */
function neighbour(lines: readonly string[], step: number): string | undefined {
  const at = lines.findIndex((l) => new RegExp(`^${CURSOR}\\s*\\S`).test(l));
  const row = at < 0 ? undefined : lines[at + step];
  if (row === undefined || new RegExp(`^${CURSOR}`).test(row)) return undefined;
  return withoutHint(row.replace(/^\d+[.)]\s+/, ''));
}

/** An option's text without a trailing key hint: "Yes, proceed (y)" → "Yes, proceed"; "Trust folder (project)" stays. */
function withoutHint(text: string): string {
  return text.replace(/\s*\((?:esc|enter|tab|[a-z0-9])\b[^()]*\)$/i, '').trim();
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= MAX ? one : `${one.slice(0, MAX - 1).trimEnd()}…`;
}
