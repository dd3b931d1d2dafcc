/**
 * The validators the build compiles from the read-only commands' result schemas
 * (scripts/build-cli.mjs) say yes exactly when zod does: on replies built from each schema,
 * and on each of those with every value in it replaced by one of another kind, removed, or
 * joined by a key the schema does not name. Compiled here from the schemas in src/, the same
 * way the build compiles them from dist/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiledChecksSource } from '../../scripts/build-cli.mjs';
import type { CompiledCheck } from '../../src/api/compiled-checks.js';
import { COMMAND_LIST } from '../../src/api/commands.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = { [k: string]: unknown };

const READ_ONLY = COMMAND_LIST.filter((c) => c.role === 'viewer');
const OTHER_KINDS: Json[] = [null, true, 0, 1.5, -3, '', 'x', [], {}, ['x'], { k: 'v' }];

/** A value of `s`: `full` takes every optional key and the first of each choice, else only what is required and the last. */
function sample(s: Schema, full: boolean): Json {
  if ('const' in s) return s.const as Json;
  if (Array.isArray(s.enum)) return s.enum[full ? 0 : s.enum.length - 1] as Json;
  if (Array.isArray(s.anyOf)) return sample(s.anyOf[full ? 0 : s.anyOf.length - 1] as Schema, full);
  const type = Array.isArray(s.type) ? (s.type[full ? 0 : s.type.length - 1] as string) : (s.type as string | undefined);
  switch (type) {
    case 'string':
      return full ? 'text' : '';
    case 'number':
      return full ? 2.5 : 0;
    case 'integer':
      return 3;
    case 'boolean':
      return full;
    case 'null':
      return null;
    case 'array':
      return s.items && full ? [sample(s.items as Schema, true), sample(s.items as Schema, false)] : [];
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set((s.required ?? []) as string[]);
      const o: Record<string, Json> = {};
      for (const [k, p] of Object.entries(props)) if (full || required.has(k)) o[k] = sample(p, full);
      if (full && typeof s.additionalProperties === 'object') o.extra = sample(s.additionalProperties as Schema, true);
      return o;
    }
    default:
      return full ? { any: [1] } : 'anything';
  }
}

/** Every path to a value inside `v`, the root included. */
function paths(v: Json, at: (string | number)[] = []): (string | number)[][] {
  const inner = Array.isArray(v) ? v.flatMap((x, i) => paths(x, [...at, i])) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k])) : [];
  return [at, ...inner];
}

/** `v` with the value at `path` replaced (`undefined`: removed). */
function replaced(v: Json, path: (string | number)[], by: Json | undefined): Json | undefined {
  if (path.length === 0) return by;
  const copy = structuredClone(v) as Record<string | number, Json>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (by !== undefined) parent[last] = by;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

/** Good replies built from the schema, and each of them changed at every place in every way. */
function candidates(schema: Schema): unknown[] {
  const out: unknown[] = [];
  for (const good of [sample(schema, true), sample(schema, false)]) {
    out.push(good);
    for (const path of paths(good)) {
      for (const by of [...OTHER_KINDS, undefined]) out.push(replaced(good, path, by));
      const here = path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k]!, good);
      if (here && typeof here === 'object' && !Array.isArray(here)) out.push(replaced(good, path, { ...here, unnamed_key: 1 }));
    }
  }
  return out;
}

let dir: string;
let checks: Record<string, CompiledCheck>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ns-checks-'));
  const file = join(dir, 'compiled-checks.mjs');
  writeFileSync(file, compiledChecksSource(COMMAND_LIST, z));
  checks = ((await import(pathToFileURL(file).href)) as { COMPILED_CHECKS: Record<string, CompiledCheck> }).COMPILED_CHECKS;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the compiled result checks agree with the zod schemas', () => {
  it('there is one for each read-only command, and for no other', () => {
    expect(Object.keys(checks).sort()).toEqual(READ_ONLY.map((c) => c.name).sort());
    expect(READ_ONLY.map((c) => c.name)).toEqual(expect.arrayContaining(['board', 'show', 'status']));
  });

  for (const c of READ_ONLY) {
    it(`${c.name}: on good replies and on every one-place change of them`, () => {
      const schema = z.toJSONSchema(c.result, { io: 'input' }) as Schema;
      let good = 0;
      let bad = 0;
      for (const reply of candidates(schema)) {
        const zod = c.result.safeParse(reply).success;
        expect(checks[c.name]!(reply), JSON.stringify(reply)).toBe(zod);
        if (zod) good++;
        else bad++;
      }
      // Both kinds, or the agreement would say nothing.
      expect(good).toBeGreaterThan(1);
      expect(bad).toBeGreaterThan(10);
    });
  }
});
