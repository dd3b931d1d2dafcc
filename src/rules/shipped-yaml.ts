/**
 * The shipped rules/ files, parsed and checked at build time: the build
 * (scripts/build-cli.mjs) loads them once with record() on and writes what
 * each loader got (the checked data and the lines it asked for) to
 * dist/src/rules/shipped-yaml.json, keyed by a hash of the loader's kind and
 * the file's text. A loader that reads the same text again takes that instead
 * of parsing: YAML with positions and the schema check were a third of a
 * `nightshift run`'s start. A file edited since (or a build without the
 * table) is parsed and checked as ever; a line not in the table is found by
 * parsing then.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { packagePath } from '../util/package.js';
import { parseYaml, validate, YamlSource } from './yaml-source.js';

export const SHIPPED_TABLE = ['dist', 'src', 'rules', 'shipped-yaml.json'] as const;

export interface Entry {
  readonly data: unknown;
  readonly lines: Readonly<Record<string, number>>;
}

let table: ReadonlyMap<string, Entry> | undefined;
let recording: Map<string, { data: unknown; src: YamlSource }> | undefined;

function shipped(): ReadonlyMap<string, Entry> {
  if (table) return table;
  // Run from the sources (tests), the code may be newer than the build's table.
  if (import.meta.url.endsWith('.ts')) return (table = new Map());
  try {
    table = new Map(Object.entries(JSON.parse(readFileSync(packagePath(...SHIPPED_TABLE), 'utf8')) as Record<string, Entry>));
  } catch {
    // No table (a build by tsc alone, a test run from the sources): every file is parsed.
    table = new Map();
  }
  return table;
}

/** Tests: read through `entries` (a record()'s table) from now on, or as the build left it (undefined). */
export function useTable(entries: Record<string, Entry> | undefined): void {
  table = entries ? new Map(Object.entries(entries)) : undefined;
}

export function keyOf(kind: string, text: string): string {
  return createHash('sha256').update(kind).update('\0').update(text).digest('base64url');
}

/** `text` parsed and checked by `schema`, or what the build's check of the same text gave. */
export function readYaml<T>(text: string, file: string, schema: z.ZodType<T>, kind: string): { src: YamlSource; data: T } {
  const key = keyOf(kind, text);
  const hit = recording ? undefined : shipped().get(key);
  // A copy: a loader may change what it was given, and the table serves every later read too.
  if (hit) return { src: new YamlSource(file, text, hit.lines), data: structuredClone(hit.data) as T };
  const src = parseYaml(text, file);
  const data = validate(src, schema);
  recording?.set(key, { data, src });
  return { src, data };
}

/**
 * For the build: from now on every file read goes into the table. The
 * returned function gives the table of what was read meanwhile, once the
 * loaders are done asking for lines; data that JSON would not give back the
 * same is left out (that file is then parsed at run time).
 */
export function record(): () => Record<string, Entry> {
  recording = new Map();
  const seen = recording;
  return () => {
    recording = undefined;
    const out: Record<string, Entry> = {};
    for (const [key, { data, src }] of seen) {
      if (!plainJson(data)) continue;
      out[key] = { data, lines: Object.fromEntries(src.asked) };
    }
    return out;
  };
}

/** Whether JSON gives `v` back as it is: no undefined member (`'key' in data` would tell), no class, no NaN. */
function plainJson(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(plainJson);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v as object).every(plainJson);
  return false;
}
