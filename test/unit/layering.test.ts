import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
