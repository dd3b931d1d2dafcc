import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const README = join(ROOT, 'README.md');
const docFiles = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(DOCS, f));

/** A repository path as the docs name one: a top-level folder of ours, then path characters. */
const REPO_PATH = /(?<![\w./@~-])((?:src|test|bench|scripts|rules|scenarios|web)\/[\w./-]*)/g;
/** A name that stands for many files (`scenarios/NAME.cast`, `src/**\/*.test.ts`) is a pattern, not a path. */
const PATTERN = /[*<>{}]|\b(?:NAME|PATH|FILE|DIR|VERSION|N)\b/;
/** A Markdown link or image to a file of ours: `[x](file.md#anchor)`, `src="screenshots/x.png"`. */
const LINK = /\]\(([^)\s#]+)(?:#[^)]*)?\)|src="([^"]+)"/g;

interface Named {
  readonly where: string;
  readonly path: string;
  readonly resolved: string;
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
}

/** The text after a path that is part of its name in prose but not in the repository: `src/probes/` stays, `rules/.` loses its full stop. */
function trimmed(path: string): string {
  return path.replace(/[.-]+$/, '');
}

function repoPaths(file: string): Named[] {
  const found: Named[] = [];
  lines(file).forEach((text, i) => {
    for (const m of text.matchAll(REPO_PATH)) {
      const path = trimmed(m[1]!);
      const rest = text.slice(m.index! + m[1]!.length);
      if (PATTERN.test(path) || /^[<*{…]/.test(rest)) continue;
      found.push({ where: `${relative(ROOT, file)}:${i + 1}`, path, resolved: join(ROOT, path) });
    }
  });
  return found;
}

function links(file: string): Named[] {
  const found: Named[] = [];
  lines(file).forEach((text, i) => {
    for (const m of text.matchAll(LINK)) {
      const path = (m[1] ?? m[2])!;
      if (/^[a-z]+:/.test(path)) continue;
      found.push({ where: `${relative(ROOT, file)}:${i + 1}`, path, resolved: join(dirname(file), path) });
    }
  });
  return found;
}

const missing = (named: Named[]) => named.filter((n) => !existsSync(n.resolved)).map((n) => `${n.where}: ${n.path}`);

describe('the documentation', () => {
  it('has the README and docs files to check', () => {
    expect(docFiles.map((f) => relative(ROOT, f))).toContain('docs/watchdog.md');
    expect(repoPaths(join(DOCS, 'architecture.md')).length).toBeGreaterThan(10);
  });

  it.each([README, ...docFiles].map((f) => [relative(ROOT, f), f]))('%s names only repository paths that exist', (_name, file) => {
    expect(missing(repoPaths(file))).toEqual([]);
  });

  it.each([README, ...docFiles].map((f) => [relative(ROOT, f), f]))('%s links only to files that exist', (_name, file) => {
    expect(missing(links(file))).toEqual([]);
  });

  it('README.md is a README: at most 150 lines', () => {
    expect(lines(README).length).toBeLessThanOrEqual(150);
  });

  it('README.md indexes every docs file, and each links back to it', () => {
    const indexed = new Set(links(README).filter((l) => l.path.startsWith('docs/')).map((l) => l.resolved));
    expect(docFiles.filter((f) => !indexed.has(f)).map((f) => relative(ROOT, f))).toEqual([]);
    expect(docFiles.filter((f) => !readFileSync(f, 'utf8').includes('](../README.md)')).map((f) => relative(ROOT, f))).toEqual([]);
  });
});
