import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { circles, folderOf, importEdges } from '../helpers/import-graph.js';
import { FLOORS } from './floors.js';

const CORE = fileURLToPath(new URL('../../src/core/', import.meta.url));
const sources = readdirSync(CORE)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(CORE, f), 'utf8') }));

describe('the deterministic core', () => {
  it('has sources', () => {
    expect(sources.map((s) => s.file)).toContain('watchdog.ts');
  });

  it.each(sources.map((s) => [s.file, s.text]))('%s imports only other core modules', (_file, text) => {
    const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]);
    // util/errors.ts is plain data (an Error subclass), the one outside module the core may use.
    for (const spec of specifiers) expect(spec, `import of ${spec}`).toMatch(/^(?:\.\/[\w-]+|\.\.\/util\/errors)\.js$/);
  });

  it.each(sources.map((s) => [s.file, s.text]))('%s never reads the clock or sets timers', (_file, text) => {
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bDate\.now\b|\bnew Date\(|\bperformance\.now\b|\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b|\bprocess\./);
  });
});

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const graph = importEdges(SRC);
const folders = [...new Set(graph.files.map(folderOf))].sort();

/**
 * Imports that still climb a floor: a debt written down, not a rule. The test
 * fails when an entry no longer occurs, so this list can only shrink.
 */
const KNOWN_CLIMBS: readonly string[] = [
];
/** Files still inside an import circle; shrink-only like KNOWN_CLIMBS (empty: keep it so). */
const KNOWN_CIRCLE_FILES: readonly string[] = [
];

function climbs(): string[] {
  return graph.edges
    .filter((e) => folderOf(e.from) !== folderOf(e.to) && !FLOORS[folderOf(e.from)]?.includes(folderOf(e.to)))
    .map((e) => `${e.from}: import of ${e.to} (${folderOf(e.from)} may not import ${folderOf(e.to)})`);
}

describe('the floors of src/', () => {
  it('reads the imports of every source file', () => {
    expect(graph.files).toContain('cli/main.ts');
    expect(graph.edges.some((e) => e.from === 'cli/main.ts')).toBe(true);
  });

  it('has a floor for every folder', () => {
    expect(folders.filter((f) => !(f in FLOORS))).toEqual([]);
  });

  it('has no circle in the table itself', () => {
    const tableEdges = Object.entries(FLOORS).flatMap(([a, bs]) => bs.map((b) => [a, b] as const));
    expect(circles(Object.keys(FLOORS), tableEdges)).toEqual([]);
  });

  it('has no import that climbs a floor, beyond the known ones', () => {
    const found = climbs();
    expect(found.filter((c) => !KNOWN_CLIMBS.includes(c))).toEqual([]);
    expect(KNOWN_CLIMBS.filter((c) => !found.includes(c)), 'known climbs gone: drop them').toEqual([]);
  });

  // Type-only imports count: a circle of types still means neither file can be read alone.
  it('has no import circle between files, beyond the known ones', () => {
    const inCircles = circles(graph.files, graph.edges.map((e) => [e.from, e.to] as const)).flat();
    expect(inCircles.filter((f) => !KNOWN_CIRCLE_FILES.includes(f)).sort()).toEqual([]);
    expect(KNOWN_CIRCLE_FILES.filter((f) => !inCircles.includes(f)), 'files out of circles: drop them').toEqual([]);
  });
});
