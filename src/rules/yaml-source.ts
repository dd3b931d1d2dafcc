/**
 * YAML (and JSON, which YAML 1.2 reads) parsed with positions, so every
 * complaint about a rule, scenario expectation or config names file:line.
 */
import { LineCounter, parseDocument, isMap, isSeq, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { InputError } from '../util/errors.js';

export interface YamlSource {
  readonly file: string;
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
}

export function parseYaml(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const line = lines.linePos(err.pos[0]).line;
    throw new InputError(`not valid YAML: ${err.message.split('\n')[0]}`, { file, line, cause: err });
  }
  return { file, doc, lines };
}

type PathKey = string | number | symbol;

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
