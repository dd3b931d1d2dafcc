/**
 * Turning tool calls and outputs into comparable strings, so probes can say
 * "the same call again" or "the same failure again" without being fooled by
 * whitespace, key order, temp directories, timestamps or ids.
 *
 * Kept deliberately conservative: small numbers survive (so `sleep 5` and
 * `sleep 50` stay different, and paging a file with offset 0, 100, 200 is not a
 * loop); only values that differ between otherwise identical runs are masked.
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const DATE = /\b\d{4}[-/]\d{2}[-/]\d{2}\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** A hex run long enough to be an id or hash (a digit and a letter, so plain words and numbers pass). */
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
/** Standalone numbers of 4+ digits: ports, pids, epoch times, sizes. Short ones are meaningful. */
const BIG_NUMBER = /(?<![\w.-])\d{4,}(?![\w])/g;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)\b/gi;
const PID = /\b(pid|process)([\s:=#]+)\d+/gi;

/** Roots of temporary directories; the first segment below one is random (mkdtemp). */
function tempRoots(): string[] {
  const roots = new Set(['/tmp', '/var/tmp', '/private/tmp', '/var/folders/[^/\\s]+/[^/\\s]+/T']);
  const own = tmpdir().replace(/\/+$/, '');
  if (own !== '' && own !== '/') roots.add(own.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return [...roots];
}
const TEMP_PATH = new RegExp(`(?:${tempRoots().join('|')})/[^/\\s'"]+`, 'g');

/** Masks values that change between identical runs; shared by args and outputs. */
function maskVolatile(s: string): string {
  return s
    .replace(TEMP_PATH, '<tmp>')
    .replace(ISO_TIME, '<time>')
    .replace(UUID, '<uuid>')
    .replace(HEX_ID, '<hex>')
    .replace(BIG_NUMBER, '<n>');
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** A value with strings normalised and object keys sorted, ready for JSON.stringify. */
function normaliseValue(v: unknown): unknown {
  if (typeof v === 'string') return maskVolatile(collapse(v));
  if (Array.isArray(v)) return v.map(normaliseValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = normaliseValue((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** `tool {sorted, normalised args}`: equal calls give equal strings. */
export function canonicalCall(tool: string, args: Readonly<Record<string, unknown>>): string {
  return `${tool} ${JSON.stringify(normaliseValue(args))}`;
}

/** Output with times, durations, pids, ids and temp paths removed, whitespace collapsed. */
export function normaliseOutput(text: string): string {
  return collapse(
    text
      .replace(TEMP_PATH, '<tmp>')
      .replace(ISO_TIME, '<time>')
      .replace(DATE, '<date>')
      .replace(CLOCK, '<time>')
      .replace(UUID, '<uuid>')
      .replace(HEX_ID, '<hex>')
      .replace(PID, '$1$2<pid>')
      .replace(DURATION, '<dur>')
      .replace(BIG_NUMBER, '<n>'),
  );
}

/** Short stable hash of the normalised output (16 hex chars of SHA-256). */
export function fingerprint(text: string): string {
  return createHash('sha256').update(normaliseOutput(text)).digest('hex').slice(0, 16);
}

/** A leading line that only says how the command exited; alone it would make all failures look alike. */
const EXIT_BANNER = /^(?:Exit code:? -?\d+|Process exited with code -?\d+|Error:?|Command failed:?)$/i;
const HEAD_MAX = 100;

/** First line of an error (≤ 100 chars); an exit-code banner is joined with the line after it. */
export function errorHead(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) return '';
  let head = lines[0]!;
  if (EXIT_BANNER.test(head) && lines.length > 1) head = `${head.replace(/:$/, '')}: ${lines[1]}`;
  return head.length > HEAD_MAX ? `${head.slice(0, HEAD_MAX - 1)}…` : head;
}

/** Epoch ms of an ISO string or epoch number, else the fallback. */
export function timeOf(v: unknown, fallback: number): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  return fallback;
}

/** Text of string content or of an array of `{text}` parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (p !== null && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
    .filter((s) => s !== '')
    .join('\n');
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses one transcript line into an object, or says why not. */
export function parseRecord(line: string): { record: Record<string, unknown> } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { error: `invalid JSON: ${(e as Error).message}` };
  }
  if (!isRecord(v)) return { error: `expected a JSON object, got ${Array.isArray(v) ? 'an array' : typeof v}` };
  return { record: v };
}
