/**
 * YAML (and JSON, which YAML 1.2 reads) parsed with positions, so every
 * complaint about a rule, scenario expectation or config names file:line.
 * A source may also stand for a file checked at build time (shipped-yaml.ts):
 * it then knows the lines its loader asks for and parses only if asked another.
 */
import { LineCounter, parseDocument, isMap, isSeq, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { InputError } from '../util/errors.js';

type PathKey = string | number | symbol;

export class YamlSource {
  private parsed: { doc: Document.Parsed; lines: LineCounter } | undefined;
  /** The lines asked for (lineAt), by lineKey: what the build keeps of a shipped file. */
  readonly asked = new Map<string, number>();

  constructor(
    readonly file: string,
    private readonly text: string,
    /** Lines by lineKey, known without parsing. */
    readonly known?: Readonly<Record<string, number>>,
  ) {}

  get doc(): Document.Parsed {
    return this.parse().doc;
  }

  get lines(): LineCounter {
    return this.parse().lines;
  }

  /** Parses the text once; a YAML error is an InputError at its line. */
  parse(): { doc: Document.Parsed; lines: LineCounter } {
    if (this.parsed) return this.parsed;
    const lines = new LineCounter();
    const doc = parseDocument(this.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const err = doc.errors[0];
    if (err) {
      const line = lines.linePos(err.pos[0]).line;
      throw new InputError(`not valid YAML: ${err.message.split('\n')[0]}`, { file: this.file, line, cause: err });
    }
    return (this.parsed = { doc, lines });
  }
}

export function parseYaml(text: string, file: string): YamlSource {
  const src = new YamlSource(file, text);
  src.parse();
  return src;
}

/** A path (and whether the key's line is wanted rather than the value's) as one string. */
export function lineKey(path: readonly PathKey[], preferKey: boolean): string {
  return JSON.stringify([preferKey ? 1 : 0, ...path.map((k) => (typeof k === 'symbol' ? String(k) : k))]);
}

function childOf(node: unknown, key: PathKey): Node | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
    return (pair?.key ?? undefined) as Node | undefined;
  }
  if (isSeq(node) && typeof key === 'number') return node.items[key] as Node | undefined;
  return undefined;
}

function valueOf(node: unknown, key: PathKey): Node | undefined {
  if (isMap(node)) return node.get(key as string, true) as Node | undefined;
  if (isSeq(node) && typeof key === 'number') return node.items[key] as Node | undefined;
  return undefined;
}

/** 1-based line of the value at `path`, or of the nearest ancestor that exists. */
export function lineAt(src: YamlSource, path: readonly PathKey[], preferKey = false): number {
  const key = lineKey(path, preferKey);
  const known = src.known?.[key];
  if (known !== undefined) return known;
  const line = findLine(src, path, preferKey);
  src.asked.set(key, line);
  return line;
}

function findLine(src: YamlSource, path: readonly PathKey[], preferKey: boolean): number {
  let node: unknown = src.doc.contents;
  let best = node as Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const last = i === path.length - 1;
    const next = last && preferKey ? childOf(node, key) : valueOf(node, key);
    if (next === undefined || next === null) break;
    node = next;
    best = next;
  }
  const offset = best?.range?.[0] ?? 0;
  return src.lines.linePos(offset).line;
}

/** Validates the document with a zod schema; the first problem becomes an InputError at its line. */
export function validate<T>(src: YamlSource, schema: z.ZodType<T>): T {
  const result = schema.safeParse(src.doc.toJS());
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  let path: PathKey[] = [...issue.path];
  let preferKey = false;
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
    path = [...path, issue.keys[0]];
    preferKey = true;
  }
  const where = path.length ? `${path.map(String).join('.')}: ` : '';
  throw new InputError(`${where}${issue.message}`, { file: src.file, line: lineAt(src, path, preferKey) });
}
