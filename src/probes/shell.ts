/**
 * Reading a shell tool's command line well enough to say what it does:
 * split into simple commands at `&&`, `||`, `;`, `|` and newlines, outside
 * quotes and heredoc bodies, with quoted text masked (so `git commit -m
 * "run npm test"` is not a test run and a heredoc's lines are not commands).
 */

/** The command line from a tool's arguments (Claude/Gemini strings, Codex argv arrays). */
export function commandOf(args: Readonly<Record<string, unknown>>, keys: readonly string[]): string | null {
  for (const key of keys) {
    const v = args[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return fromArgv(v as string[]);
  }
  return null;
}

/** `["bash", "-lc", "npm test"]` is the script; other argv is joined with spaces. */
function fromArgv(argv: string[]): string {
  const shell = /(?:^|\/)(?:ba|z|da)?sh$/.test(argv[0]!);
  if (shell && argv.length >= 3 && /^-\w*c$/.test(argv[1]!)) return argv.slice(2).join(' ');
  return argv.map((a) => (/[\s;&|]/.test(a) ? `'${a.replace(/'/g, '')}'` : a)).join(' ');
}

const HEREDOC = /^<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/;

interface Scan {
  segments: string[];
  cur: string;
  heredocs: string[];
}

/** Simple commands of a command line, quoted text masked as "", heredoc bodies dropped. */
export function segmentsOf(line: string): string[] {
  const s: Scan = { segments: [], cur: '', heredocs: [] };
  let i = 0;
  while (i < line.length) i = step(line, i, s);
  push(s);
  return s.segments;
}

function push(s: Scan): void {
  const seg = s.cur.trim();
  if (seg !== '') s.segments.push(seg);
  s.cur = '';
}

function step(line: string, i: number, s: Scan): number {
  const c = line[i]!;
  if (c === '\\') {
    s.cur += line.slice(i, i + 2);
    return i + 2;
  }
  if (c === "'" || c === '"') return skipQuoted(line, i, s);
  if (c === '\n') {
    push(s);
    return skipHeredocBodies(line, i + 1, s);
  }
  if (line.startsWith('<<<', i)) {
    s.cur += '<<<';
    return i + 3;
  }
  const here = HEREDOC.exec(line.slice(i));
  if (here) {
    s.heredocs.push(here[2]!);
    s.cur += '<<EOF';
    return i + here[0].length;
  }
  const two = line.slice(i, i + 2);
  if (two === '&&' || two === '||') {
    push(s);
    return i + 2;
  }
  // `2>&1` and `&>` are redirections, not separators.
  if (c === ';' || (c === '|' && line[i - 1] !== '>') || (c === '&' && line[i - 1] !== '>' && line[i + 1] !== '>')) {
    push(s);
    return i + 1;
  }
  s.cur += c;
  return i + 1;
}

function skipQuoted(line: string, i: number, s: Scan): number {
  const q = line[i]!;
  let j = i + 1;
  while (j < line.length && line[j] !== q) j += q === '"' && line[j] === '\\' ? 2 : 1;
  s.cur += '""';
  return j + 1;
}

/** After a newline: drop the bodies of heredocs opened on the previous line. */
function skipHeredocBodies(line: string, i: number, s: Scan): number {
  let at = i;
  while (s.heredocs.length > 0) {
    const delim = s.heredocs.shift()!;
    for (;;) {
      if (at >= line.length) return at;
      const nl = line.indexOf('\n', at);
      const end = nl < 0 ? line.length : nl;
      const text = line.slice(at, end).trim();
      at = end + 1;
      if (text === delim) break;
    }
  }
  return at;
}

/** Wrappers in front of the real command: `FOO=1 sudo timeout 60 npm test` → `npm test`. */
const PREFIX = /^(?:[A-Za-z_]\w*=\S*\s+|(?:sudo|time|env|nohup|command|exec|nice|stdbuf(?:\s+-\S+)*)\s+|timeout\s+(?:-\S+\s+)*\S+\s+)+/;
/** Commands that set up the shell and say nothing about the work (`cd src && …`). */
const NEUTRAL = /^(?:cd|pushd|popd|export|set|source|\.|true|:|unset|alias)(?:\s|$)/;

/** A segment without its wrappers, or null when it only sets up the shell. */
export function coreOf(segment: string): string | null {
  const core = segment.replace(PREFIX, '').trim();
  if (core === '' || NEUTRAL.test(core)) return null;
  return core;
}
